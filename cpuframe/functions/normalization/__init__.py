"""normalization functions."""

__all__ = []
