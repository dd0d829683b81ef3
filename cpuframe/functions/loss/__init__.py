"""loss functions."""

__all__ = []
