"""Indexed accumulation shared by the indexing ops (get_item, scatter_add,
pad, repeat) and pooling."""
import numpy

from cpuframe import backend


def add_at(a, slices, b):
    """``a[slices] += b`` in place, adding every repeat of an index.

    ``numpy.add.at`` on NumPy; on CuPy, ``cupy.add.at`` where the version
    has it and ``cupyx.scatter_add`` otherwise.
    """
    xp = backend.get_array_module(a)
    if xp is numpy:
        numpy.add.at(a, slices, b)
    elif hasattr(xp.add, 'at'):
        xp.add.at(a, slices, b)
    else:
        import cupyx
        cupyx.scatter_add(a, slices, b)
