"""Redis-backed storage: versioned game blobs, logs, deadlines, de-duplication and indexes."""

from storage.store import (
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
