"""The package's version (``ascverify --version``, reports, generated manifests)."""

__version__ = "0.1.0"
