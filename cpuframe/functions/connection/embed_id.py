"""Embedding lookup, Chainer's ``embed_id``: ``y[i...] = W[x[i...]]``."""
import numpy

from cpuframe import backend
from cpuframe.backends import intel64
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _check_ids(x, n_vocab, ignore_label):
    """Raise ValueError unless every id (but ``ignore_label``) is in range."""
    ids = x if ignore_label is None else x[x != ignore_label]
    if ids.size == 0:
        return
    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high >= n_vocab:
        raise ValueError(
            'embed_id: expected every id{} in [0, {}) (the rows of W), got '
            'ids from {} to {}'.format(
                '' if ignore_label is None else
                ' except ignore_label={}'.format(ignore_label),
                n_vocab, low, high))


class EmbedIDFunction(FunctionNode):
    """Rows of ``W`` picked by the integer ids ``x``."""

    def __init__(self, ignore_label=None):
        self.ignore_label = ignore_label

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'W'))
        x_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'i',
            w_type.dtype.kind == 'f',
            w_type.ndim == 2,
        )

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, W = inputs
        xp = backend.get_array_module(x, W)
        _check_ids(x, W.shape[0], self.ignore_label)
        if self.ignore_label is None:
            return W.take(x, axis=0),
        mask = x == self.ignore_label
        y = W.take(xp.where(mask, 0, x), axis=0)
        y[mask] = 0
        return y,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(None)
            else:
                shape = self.inputs[1].shape
                ret.append(EmbedIDGrad(shape, self.ignore_label).apply(
                    (x, gy))[0])
        return tuple(ret)


    def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
        # An embedding looked up at every step of an unrolled RNN: its rows
        # are added into the gradient summed so far (when only the engine
        # holds it) instead of a dense (n_vocab, n_units) gradient per step
        # being made and added (26 MB twice per step for the PTB model).
        if 1 in indexes:
            k = indexes.index(1)
            acc = _dense_view(self.donated_grad_input(k, grad_inputs),
                              self.inputs[1].shape)
            if acc is not None:
                x, = self.get_retained_inputs()
                gy, = grad_outputs
                node = EmbedIDGrad(acc.shape, self.ignore_label)
                if not node._function_hooks() and \
                        backend.get_array_module(x.array, gy.array) is numpy:
                    ids, rows = node._ids_and_rows(
                        x.array, intel64.to_numpy(gy.array))
                    numpy.add.at(acc, ids, rows.astype(acc.dtype, copy=False))
                    return self._accumulate_rest(
                        indexes, grad_outputs, grad_inputs,
                        {k: grad_inputs[k]})
        return super().backward_accumulate(indexes, grad_outputs, grad_inputs)


def _dense_view(acc, shape):
    """A writeable NumPy view of the accumulator ``acc`` (a C-contiguous
    ndarray or a plain mdarray of ``shape``), or None."""
    if acc is None or tuple(acc.shape) != tuple(shape):
        return None
    if isinstance(acc, numpy.ndarray):
        ok = acc.flags.c_contiguous and acc.flags.writeable
        return acc if ok else None
    if intel64.is_native_array(acc) and acc.is_plain and \
            acc.storage_dtype == 'float32':
        return acc.raw_view().reshape(shape)
    return None


class EmbedIDGrad(FunctionNode):
    """``gW[v] = sum of gy[i] over the ids x[i] == v`` (ignored ids add nothing)."""

    def __init__(self, w_shape, ignore_label=None):
        self.w_shape = tuple(w_shape)
        self.ignore_label = ignore_label

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gy'))
        x_type, gy_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'i',
            gy_type.dtype.kind == 'f',
            gy_type.ndim == x_type.ndim + 1,
        )

    def _ids_and_rows(self, x, gy):
        x = x.reshape(-1)
        gy = gy.reshape(x.size, self.w_shape[1])
        if self.ignore_label is not None:
            keep = x != self.ignore_label
            x, gy = x[keep], gy[keep]
        return x, gy

    def forward_cpu(self, inputs):
        self.retain_inputs((0,))
        x, gy = self._ids_and_rows(*inputs)
        gW = numpy.zeros(self.w_shape, dtype=gy.dtype)
        numpy.add.at(gW, x, gy)
        return gW,

    def forward_gpu(self, inputs):
        import cupyx
        self.retain_inputs((0,))
        x, gy = self._ids_and_rows(*inputs)
        gW = backend.get_array_module(gy).zeros(self.w_shape, dtype=gy.dtype)
        cupyx.scatter_add(gW, x, gy)
        return gW,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        ggW, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(None)
            else:
                ret.append(EmbedIDFunction(self.ignore_label).apply(
                    (x, ggW))[0])
        return tuple(ret)


def embed_id(x, W, ignore_label=None):
    """Embedding: each integer id of ``x`` picks a row of ``W``.

    ``x`` is an integer array of any shape ``s``, ``W`` is
    ``(n_vocab, n_units)``; the output is ``s + (n_units,)`` with
    ``y[i...] = W[x[i...]]``.  Positions where ``x == ignore_label`` give
    zero vectors and add nothing to the gradient of ``W``.  ``x`` carries no
    gradient.  An id outside ``[0, n_vocab)`` (other than ``ignore_label``)
    raises ``ValueError``.

    Args:
        x: integer ids (Variable or array).
        W: the embedding matrix ``(n_vocab, n_units)``, floating point.
        ignore_label (int or None): the id that maps to zeros.

    >>> W = np.arange(6, dtype=np.float32).reshape(3, 2)
    >>> F.embed_id(np.array([2, 0, -1], np.int32), W, ignore_label=-1).array
    array([[4., 5.],
           [0., 1.],
           [0., 0.]], dtype=float32)
    """
    return EmbedIDFunction(ignore_label).apply((x, W))[0]
