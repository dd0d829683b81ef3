"""Sigmoid cross entropy: binary log loss on pre-sigmoid scores."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.functions.loss._common import check_reduce
from cpuframe.utils import type_check

_NAME = 'sigmoid_cross_entropy'


class SigmoidCrossEntropy(FunctionNode):
    """Sigmoid followed by the binary cross entropy with 0/1 labels."""

    ignore_label = -1

    def __init__(self, normalize=True, reduce='mean'):
        self.normalize = normalize
        self.reduce = reduce
        self.count = None

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 't'))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == 'f',
                          t_type.dtype.kind == 'i',
                          x_type.shape == t_type.shape)

    def forward(self, inputs):
        x, t = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        self._mask = (t != self.ignore_label).astype(x.dtype)
        self._t = t.astype(x.dtype)
        # -(t log s(x) + (1 - t) log(1 - s(x))), written so that exp never
        # sees a positive argument.
        loss = xp.log1p(xp.exp(-abs(x))) - x * (self._t - (x >= 0))
        loss *= self._mask
        if self.reduce == 'no':
            return utils.force_array(loss, x.dtype),
        if self.normalize:
            self.count = max(1, int(self._mask.sum()))
        else:
            self.count = max(1, len(x))
        return utils.force_array(
            xp.asarray(loss.sum() / self.count, dtype=x.dtype)),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        grad = SigmoidCrossEntropyGrad(self.reduce, self.count, self._mask,
                                       self._t)
        return grad.apply((x, grad_outputs[0]))[0], None


class SigmoidCrossEntropyGrad(FunctionNode):
    """``gx = gy * mask * (sigmoid(x) - t) / count`` from ``(x, gy)``."""

    def __init__(self, reduce, count, mask, t):
        self.reduce = reduce
        self.count = count
        self.mask = mask
        self.t = t

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'gy'))
        type_check.expect(in_types[0].dtype.kind == 'f',
                          in_types[1].dtype == in_types[0].dtype)

    def forward(self, inputs):
        x, gy = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        y = xp.tanh(x * 0.5) * 0.5 + 0.5
        gx = (y - self.t) * self.mask
        gx *= gy if self.reduce == 'no' else gy / self.count
        return utils.force_array(gx, x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.activation.sigmoid import sigmoid
        from cpuframe.functions.math.sum import sum as sum_
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        y = sigmoid(x)
        scale = self.mask if self.reduce == 'no' else self.mask / self.count
        scale = scale.astype(x.dtype, copy=False)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(y * (1.0 - y) * gy * (ggx * scale))
            else:
                g = (y - self.t) * (ggx * scale)
                ret.append(g if self.reduce == 'no' else sum_(g))
        return tuple(ret)


def sigmoid_cross_entropy(x, t, normalize=True, reduce='mean'):
    """Cross entropy of ``sigmoid(x)`` with binary labels ``t``.

    Elementwise ``l = -(t log sigmoid(x) + (1 - t) log(1 - sigmoid(x)))``,
    computed stably as ``log(1 + exp(-|x|)) - x (t - [x >= 0])``; it is 0
    where ``t == -1`` (ignored).

    Args:
        x: float scores of any shape (the first axis is the batch).
        t: signed integer labels of ``x``'s shape, each 0, 1 or -1.
        normalize (bool): with ``reduce='mean'``, divide the sum by the
            number of non-ignored labels (True) or by the batch size
            ``len(x)`` (False); 0 when every label is ignored.
        reduce (str): ``'mean'`` (a scalar) or ``'no'`` (``x``'s shape).

    Returns:
        Variable of ``x``'s dtype, differentiable by ``x`` only.

    >>> x = np.array([[-2., 3., 0.5], [5., 2., -0.5]], np.float32)
    >>> t = np.array([[0, 1, 0], [1, 1, -1]], np.int32)
    >>> F.sigmoid_cross_entropy(x, t).array
    array(0.25664714, dtype=float32)
    >>> F.sigmoid_cross_entropy(x, t, normalize=False).array
    array(0.64161783, dtype=float32)
    """
    check_reduce(_NAME, reduce, ('mean', 'no'))
    return SigmoidCrossEntropy(normalize, reduce).apply((x, t))[0]
