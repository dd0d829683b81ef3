"""Products of a sparse (COO) matrix and a dense one."""
import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class CooToDense(FunctionNode):
    """The dense matrix (or batch) of COO entries ``data`` at ``row, col``;
    duplicate entries add up, entries with a negative index are padding.
    Its gradient gathers the output gradient at the entries."""

    def __init__(self, row, col, shape):
        self.row = row
        self.col = col
        self.shape = tuple(shape)

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('data',))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[0].ndim == self.row.ndim)

    def _valid(self):
        return (self.row >= 0) & (self.col >= 0)

    def forward(self, inputs):
        data, = inputs
        xp = backend.get_array_module(data)
        valid = self._valid()
        if data.ndim == 1:
            dense = xp.zeros(self.shape, data.dtype)
            index = (self.row[valid], self.col[valid])
        else:
            dense = xp.zeros((data.shape[0],) + self.shape, data.dtype)
            batch = xp.broadcast_to(
                xp.arange(data.shape[0])[:, None], data.shape)
            index = (batch[valid], self.row[valid], self.col[valid])
        if xp is numpy:
            numpy.add.at(dense, index, data[valid])
        else:
            import cupyx
            cupyx.scatter_add(dense, index, data[valid])
        return dense,

    def backward(self, indexes, grad_outputs):
        return CooGather(self.row, self.col).apply(grad_outputs)


class CooGather(FunctionNode):
    """The entries of a dense matrix (batch) at ``row, col`` (0 at padding
    entries); the adjoint of :class:`CooToDense`."""

    def __init__(self, row, col):
        self.row = row
        self.col = col

    def forward(self, inputs):
        dense, = inputs
        self._shape = dense.shape[-2:]
        xp = backend.get_array_module(dense)
        valid = (self.row >= 0) & (self.col >= 0)
        row = xp.where(valid, self.row, 0)
        col = xp.where(valid, self.col, 0)
        if dense.ndim == 2:
            out = dense[row, col]
        else:
            batch = xp.arange(dense.shape[0])[:, None]
            out = dense[batch, row, col]
        return xp.where(valid, out, 0).astype(dense.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        return CooToDense(self.row, self.col, self._shape).apply(
            grad_outputs)


def _is_dense(x):
    from cpuframe.variable import Variable
    return isinstance(x, Variable) or backend.is_array(x)


def _product(sp, dense, sp_left, transa, transb):
    from cpuframe.functions.array.cast import cast
    from cpuframe.functions.math.basic_math import matmul
    from cpuframe.variable import as_variable
    dense = as_variable(dense)
    if dense.ndim not in (2, 3) or sp.data.ndim != dense.ndim - 1:
        raise ValueError(
            'sparse_matmul: a batch of sparse matrices (data of ndim {}) '
            'needs a dense operand of ndim {}, got {}'.format(
                sp.data.ndim, sp.data.ndim + 1, dense.ndim))
    a = CooToDense(sp.row, sp.col, sp.shape).apply((sp.data,))[0]
    dtype = numpy.result_type(a.dtype, dense.dtype)
    if a.dtype != dtype:
        a = cast(a, dtype)
    if dense.dtype != dtype:
        dense = cast(dense, dtype)
    if sp_left:
        return matmul(a, dense, transa=transa, transb=transb)
    return matmul(dense, a, transa=transa, transb=transb)


def sparse_matmul(a, b, transa=False, transb=False):
    """The matrix product of a sparse and a dense matrix (or batches).

    One of ``a``, ``b`` is a :class:`~cpuframe.utils.CooMatrix` (e.g. from
    :func:`~cpuframe.utils.to_coo`), the other a 2-d (3-d for a batch)
    array or Variable.  ``transa``/``transb`` transpose each matrix of
    ``a``/``b`` first.  The gradient of the sparse operand flows to its
    ``data`` Variable (only at the stored entries).

    >>> from cpuframe import utils
    >>> sp = utils.to_coo(np.array([[0., 2.], [1., 0.]], np.float32))
    >>> F.sparse_matmul(sp, np.eye(2, dtype=np.float32)).array
    array([[0., 2.],
           [1., 0.]], dtype=float32)
    """
    from cpuframe.utils.sparse import CooMatrix
    if isinstance(a, CooMatrix) and _is_dense(b):
        return _product(a, b, True, transa, transb)
    if _is_dense(a) and isinstance(b, CooMatrix):
        return _product(b, a, False, transa, transb)
    raise ValueError('This combination of type of inputs is not supported.\n'
                     '    a: {}\n    b: {}\n'.format(type(a), type(b)))
