"""evaluation functions."""

__all__ = []
