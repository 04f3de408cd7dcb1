"""The machinery every tool shares: the decorator, schemas from signatures, the registry, loading user tools."""
