"""Redis-backed storage: versioned game blobs, logs, deadlines, de-duplication and indexes."""

from storage.store import GameKey, GameStore, Loaded, StorageUnavailable

__all__ = ["GameKey", "GameStore", "Loaded", "StorageUnavailable"]
