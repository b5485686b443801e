"""The in-memory index: documents added one at a time and queried for near-duplicates."""
