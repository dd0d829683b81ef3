"""Sparse matrices in COO format (used by ``F.sparse_matmul``)."""
import numpy

from cpuframe import backend


def _scatter_add(dense, row, col, data):
    # Padding entries (index -1) sit after the last non-zero: drop them.
    if data.size == 0:
        return
    xp = backend.get_array_module(dense)
    nz = xp.flatnonzero(data != 0)
    end = int(nz[-1]) + 1 if nz.size else 0
    if xp is numpy:
        numpy.add.at(dense, (row[:end], col[:end]), data[:end])
    else:
        import cupyx
        cupyx.scatter_add(dense, (row[:end], col[:end]), data[:end])


class CooMatrix:
    """A sparse matrix (or a batch of them) in COO format.

    Args:
        data: the entries, 1-D (one matrix) or 2-D (a batch).
        row, col: their row and column indices, shaped like ``data``;
            unused slots hold -1.
        shape: the dense ``(rows, cols)``.
        order: ``'C'`` (row indices sorted), ``'F'`` (column indices
            sorted), ``'other'``, or None to detect it with
            :func:`get_order`.
        requires_grad: whether ``data`` (a Variable) requires a gradient.
    """

    def __init__(self, data, row, col, shape, order=None,
                 requires_grad=False):
        from cpuframe.variable import Variable
        if not (1 <= data.ndim <= 2):
            raise ValueError('ndim of data must be 1 or 2.')
        if not (data.ndim == row.ndim == col.ndim):
            raise ValueError('ndim of data, row and col must be the same.')
        if len(shape) != 2:
            raise ValueError('length of shape must be 2.')
        if not (shape[0] > 0 and shape[1] > 0):
            raise ValueError('numbers in shape must be greater than 0.')
        if order not in ('C', 'F', 'other', None):
            raise ValueError("order must be 'C', 'F', 'other' or None.")
        self.data = Variable(data, requires_grad=requires_grad)
        self.row = row
        self.col = col
        self.shape = shape
        self.order = get_order(row, col) if order is None else order

    def to_dense(self):
        """The dense array (a batch of them when ``data`` is 2-D)."""
        data = self.data.array
        xp = backend.get_array_module(data)
        if data.ndim == 1:
            dense = xp.zeros(self.shape, dtype=data.dtype)
            _scatter_add(dense, self.row, self.col, data)
        else:
            dense = xp.zeros((data.shape[0],) + tuple(self.shape),
                             dtype=data.dtype)
            for i in range(data.shape[0]):
                _scatter_add(dense[i], self.row[i], self.col[i], data[i])
        return dense


def to_coo(x, ldnz=None, requires_grad=False):
    """A :class:`CooMatrix` of the dense matrix (2-D) or batch (3-D) ``x``.

    ``ldnz`` is the minimum length of the data/row/col arrays (padded with
    0 / -1 / -1); a batch uses the largest non-zero count among its
    matrices (or ``ldnz`` if larger).
    """
    xp = backend.get_array_module(x)
    if x.ndim == 2:
        rows, cols = xp.nonzero(x)
        nnz = len(rows)
        if ldnz is None or ldnz < nnz:
            ldnz = nnz
        data = xp.zeros(ldnz, dtype=x.dtype)
        row = xp.full(ldnz, -1, dtype=numpy.int32)
        col = xp.full(ldnz, -1, dtype=numpy.int32)
        data[:nnz] = x[rows, cols]
        row[:nnz] = rows
        col[:nnz] = cols
        return CooMatrix(data, row, col, x.shape, requires_grad=requires_grad)
    if x.ndim == 3:
        width = max([int((x[i] != 0).sum()) for i in range(x.shape[0])] +
                    [ldnz or 0])
        data = xp.empty((x.shape[0], width), dtype=x.dtype)
        row = xp.empty((x.shape[0], width), dtype=numpy.int32)
        col = xp.empty((x.shape[0], width), dtype=numpy.int32)
        for i in range(x.shape[0]):
            one = to_coo(x[i], width)
            data[i] = one.data.array
            row[i] = one.row
            col[i] = one.col
        return CooMatrix(data, row, col, x.shape[1:],
                         requires_grad=requires_grad)
    raise ValueError('ndim of x must be 2 or 3.')


def get_order(row, col):
    """``'C'`` if the entries are sorted by row (then column), ``'F'`` if
    sorted by column (then row), else ``'other'``."""
    if _is_c_order(row, col):
        return 'C'
    if _is_c_order(col, row):
        return 'F'
    return 'other'


def _is_c_order(row, col):
    if row.shape != col.shape:
        raise ValueError('shape of row and col must be the same.')
    if row.ndim != 1:
        return all(_is_c_order(row[i], col[i]) for i in range(row.shape[0]))
    xp = backend.get_array_module(row)
    r = row[col >= 0]
    c = col[row >= 0]
    if (r < 0).any() or (c < 0).any():
        raise ValueError('invalid index combination of row and col.')
    if r.shape[0] <= 1:
        return True
    dr = xp.diff(r)
    if (dr < 0).any():
        return False
    dc = xp.diff(c)
    # Within one row the columns must not decrease.
    return bool(((dc >= 0) | (dr > 0)).all())
