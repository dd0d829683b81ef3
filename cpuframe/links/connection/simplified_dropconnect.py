"""Kept for code that imported the link from here: the module is
:mod:`cpuframe.links.activation.simplified_dropconnect` (Chainer's path)."""
from cpuframe.links.activation.simplified_dropconnect import (  # noqa: F401
    SimplifiedDropconnect,
)
