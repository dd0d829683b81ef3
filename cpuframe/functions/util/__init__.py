"""Utility functions: recomputation in backward (forget)."""
from cpuframe.functions.util.forget import forget

__all__ = ['forget']
