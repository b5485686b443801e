"""Package version (PEP 440)."""

__version__ = "0.1.0"
