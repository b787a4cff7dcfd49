"""Redis-backed storage: versioned game blobs, logs, deadlines, de-duplication and indexes."""

from storage.store import BoardClaim, GameKey, GameStore, Loaded, StorageUnavailable

__all__ = ["BoardClaim", "GameKey", "GameStore", "Loaded", "StorageUnavailable"]
