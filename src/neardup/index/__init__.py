"""Collections: the API every backend shares, and its memory backend (the in-memory index)."""
