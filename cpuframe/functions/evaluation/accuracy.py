"""Classification accuracy (not differentiable)."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class Accuracy(FunctionNode):
    """The fraction of positions whose argmax over axis 1 equals ``t``."""

    def __init__(self, ignore_label=None):
        self.ignore_label = ignore_label

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('y', 't'))
        y_type, t_type = in_types
        type_check.expect(y_type.dtype.kind == 'f',
                          t_type.dtype.kind == 'i')
        t_ndim = type_check.eval(t_type.ndim)
        type_check.expect(y_type.ndim >= t_type.ndim,
                          t_type.ndim >= 1,
                          y_type.ndim >= 2,
                          y_type.shape[0] == t_type.shape[0],
                          y_type.shape[2:t_ndim + 1] == t_type.shape[1:])
        for i in range(t_ndim + 1, type_check.eval(y_type.ndim)):
            type_check.expect(y_type.shape[i] == 1)

    def forward(self, inputs):
        y, t = inputs
        xp = backend.get_array_module(y)
        pred = y.argmax(axis=1).reshape(t.shape)
        correct = pred == t
        if self.ignore_label is None:
            total = t.size
            hits = int(correct.sum())
        else:
            valid = t != self.ignore_label
            total = int(valid.sum())
            hits = int((correct & valid).sum())
        acc = hits / total if total else 0.0
        return utils.force_array(xp.asarray(acc, dtype=y.dtype)),

    def backward(self, indexes, grad_outputs):
        return tuple(None for _ in indexes)


def accuracy(y, t, ignore_label=None):
    """Accuracy of the predictions ``argmax(y, axis=1)`` against ``t``.

    Args:
        y: float scores of shape ``(N, C)`` or ``(N, C, d1, ...)`` (extra
            trailing axes of size 1 are allowed).
        t: signed integer labels of shape ``(N,)`` or ``(N, d1, ...)``.
        ignore_label (int or None): positions with this label count neither
            as hits nor in the total; when every label is ignored the
            accuracy is 0.

    Returns:
        Variable: a 0-dim array of ``y``'s dtype.  The function is not
        differentiable (its backward gives no gradient).

    >>> y = np.array([[0.1, 0.7, 0.2], [8., 1., 2.]], np.float32)
    >>> F.accuracy(y, np.array([1, 1], np.int32)).array
    array(0.5, dtype=float32)
    >>> F.accuracy(y, np.array([1, -1], np.int32), ignore_label=-1).array
    array(1., dtype=float32)
    """
    return Accuracy(ignore_label).apply((y, t))[0]
