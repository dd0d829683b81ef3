"""pooling functions."""

__all__ = []
