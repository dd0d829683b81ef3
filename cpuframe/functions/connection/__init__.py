"""connection functions."""

__all__ = []
