"""Redis-backed storage: versioned game blobs, logs, deadlines, de-duplication and indexes."""

from storage.store import (
    BudgetLimit,
    GameKey,
    GameStore,
    History,
    Loaded,
    SaveResult,
    StorageBusy,
    StorageFull,
    StorageRefused,
    StorageUnavailable,
)

__all__ = [
    "BudgetLimit",
    "GameKey",
    "GameStore",
    "History",
    "Loaded",
    "SaveResult",
    "StorageBusy",
    "StorageFull",
    "StorageRefused",
    "StorageUnavailable",
]
