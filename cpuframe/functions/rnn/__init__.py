"""rnn functions."""

__all__ = []
