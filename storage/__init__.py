"""Redis-backed storage: versioned game blobs, logs, deadlines, de-duplication and indexes."""

from storage.store import (
    BoardClaim,
    GameKey,
    GameStore,
    History,
    Loaded,
    SaveResult,
    StorageFull,
    StorageRefused,
    StorageUnavailable,
)

__all__ = [
    "BoardClaim",
    "GameKey",
    "GameStore",
    "History",
    "Loaded",
    "SaveResult",
    "StorageFull",
    "StorageRefused",
    "StorageUnavailable",
]
