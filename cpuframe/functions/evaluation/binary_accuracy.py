"""Binary classification accuracy (not differentiable)."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class BinaryAccuracy(FunctionNode):
    """The fraction of non-ignored labels matching ``y >= 0``."""

    ignore_label = -1

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('y', 't'))
        y_type, t_type = in_types
        type_check.expect(y_type.dtype.kind == 'f',
                          t_type.dtype.kind == 'i',
                          t_type.shape == y_type.shape)

    def forward(self, inputs):
        y, t = inputs
        xp = backend.get_array_module(y)
        # An ignored label (-1) never equals a 0/1 prediction.
        hits = int(((y >= 0) == t).sum())
        count = max(1, int((t != self.ignore_label).sum()))
        return utils.force_array(xp.asarray(hits / count, dtype=y.dtype)),

    def backward(self, indexes, grad_outputs):
        return tuple(None for _ in indexes)


def binary_accuracy(y, t):
    """Accuracy of binary predictions ``y >= 0`` against labels ``t``.

    Args:
        y: float scores of any shape; the predicted label is 1 where
            ``y >= 0`` and 0 elsewhere.
        t: signed integer labels of ``y``'s shape: 1 (positive), 0
            (negative) or -1 (ignored).  The accuracy is 0 when every
            label is ignored.

    Returns:
        Variable: a 0-dim array of ``y``'s dtype (not differentiable).

    >>> y = np.array([[-2., 0.], [3., -5.]])
    >>> F.binary_accuracy(y, np.array([[0, 0], [1, 1]], np.int32)).array
    array(0.5)
    >>> F.binary_accuracy(y, np.array([[0, -1], [1, -1]], np.int32)).array
    array(1.)
    """
    return BinaryAccuracy().apply((y, t))[0]
