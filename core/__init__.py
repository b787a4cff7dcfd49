"""The rules engine: pure game logic, no platform, storage or clock."""
