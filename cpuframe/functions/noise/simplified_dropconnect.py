"""Linear unit regularized by simplified dropconnect."""
import numbers

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check
from cpuframe.variable import Variable


class SimplifiedDropconnect(FunctionNode):
    """``y[i] = (W * scale * mask[i]) x[i] + b`` with a fixed 0/1 mask.

    ``mask`` is ``(n, M, N)`` (one per sample) or ``(M, N)`` (shared);
    ``scale = 1 / (1 - ratio)``.  The backward is made of matmuls of the
    masked weight, so every order of gradient works.
    """

    def __init__(self, ratio, mask=None, use_batchwise_mask=True):
        self.ratio = ratio
        self.mask = mask
        self.use_batchwise_mask = use_batchwise_mask

    def check_type_forward(self, in_types):
        n_in = type_check.eval(in_types.size())
        type_check.argname(in_types, ('x', 'W') if n_in == 2 else
                           ('x', 'W', 'b'))
        x_type, w_type = in_types[:2]
        type_check.expect(
            x_type.dtype.kind == 'f',
            w_type.dtype == x_type.dtype,
            x_type.ndim >= 2,
            w_type.ndim == 2,
        )
        x_shape = type_check.eval(x_type.shape)
        in_size = 1
        for s in x_shape[1:]:
            in_size *= s
        if in_size != type_check.eval(w_type.shape)[1]:
            raise type_check.InvalidType(
                'prod(x.shape[1:]) == W.shape[1]',
                'x.shape = {}, W.shape = {}'.format(
                    x_shape, type_check.eval(w_type.shape)))
        if n_in == 3:
            b_type = in_types[2]
            type_check.expect(b_type.dtype == x_type.dtype,
                              b_type.ndim == 1,
                              b_type.shape[0] == w_type.shape[0])
        if self.mask is not None:
            w_shape = tuple(type_check.eval(w_type.shape))
            n = type_check.eval(x_type.shape)[0]
            shape = tuple(self.mask.shape)
            if shape not in ((n,) + w_shape, w_shape):
                raise type_check.InvalidType(
                    'mask.shape == (x.shape[0],) + W.shape = {} or W.shape '
                    '= {}'.format((n,) + w_shape, w_shape),
                    'mask.shape = {}'.format(shape))

    def forward(self, inputs):
        x, W = inputs[:2]
        xp = backend.get_array_module(x)
        self.retain_inputs((0, 1))
        n = x.shape[0]
        if self.mask is None:
            shape = ((n,) + W.shape) if self.use_batchwise_mask else W.shape
            # xp.random's global state: numpy.random.seed repeats it.
            self.mask = xp.random.random_sample(shape) >= self.ratio
        scale = 1.0 / (1.0 - self.ratio)
        self._scaled_mask = (self.mask * scale).astype(W.dtype)
        x2 = x.reshape(n, -1)
        Wm = W * self._scaled_mask
        if Wm.ndim == 3:
            y = xp.matmul(Wm, x2[:, :, None])[:, :, 0]
        else:
            y = x2.dot(Wm.T)
        if len(inputs) == 3:
            y = y + inputs[2]
        return xp.asarray(y, dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.broadcast import broadcast_to
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.math.basic_math import _matmul
        from cpuframe.functions.math.sum import sum as sum_
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ms = self._scaled_mask
        n = x.shape[0]
        m, k = W.shape
        x2 = reshape(x, (n, k))
        ret = []
        for i in indexes:
            if i == 0:
                if ms.ndim == 3:
                    Wm = broadcast_to(W, ms.shape) * ms
                    gx = _matmul(reshape(gy, (n, 1, m)), Wm, False, False)
                else:
                    gx = _matmul(gy, W * ms, False, False)
                ret.append(reshape(gx, x.shape))
            elif i == 1:
                if ms.ndim == 3:
                    outer = _matmul(reshape(gy, (n, m, 1)),
                                    reshape(x2, (n, 1, k)), False, False)
                    ret.append(sum_(outer * ms, axis=0))
                else:
                    ret.append(_matmul(gy, x2, True, False) * ms)
            else:
                ret.append(sum_(gy, axis=0))
        return tuple(ret)


def simplified_dropconnect(x, W, b=None, ratio=.5, train=True, mask=None,
                           use_batchwise_mask=True):
    """Linear unit regularized by simplified dropconnect.

    Drops elements of the weight matrix at random with probability
    ``ratio`` and scales the others by ``1 / (1 - ratio)``, then computes
    ``y = x W^T + b`` (one masked ``W`` per sample with
    ``use_batchwise_mask``).  With ``train=False`` the ratio is 0: a plain
    linear function (the ``train`` argument, not ``config.train``, decides,
    as in Chainer).

    Notice: as in Chainer, this averages before the activation rather
    than sampling from a Gaussian as the paper does.

    Args:
        x (Variable or array): Input ``(n, ...)``, flattened to ``(n, N)``.
        W (Variable or array): Weight ``(M, N)``.
        b (Variable or array): Bias ``(M,)`` (optional).
        ratio (float): Dropconnect ratio, ``0 <= ratio < 1``.
        train (bool): Apply dropconnect; otherwise a linear function.
        mask (array or None): A 0/1 mask ``(n, M, N)`` or ``(M, N)`` to use
            instead of drawing one (``use_batchwise_mask`` is then
            ignored); still scaled by ``1 / (1 - ratio)``.
        use_batchwise_mask (bool): Draw a mask per sample rather than one
            for the whole batch.

    Returns:
        Variable of shape ``(n, M)``.

    See: `Regularization of Neural Networks using DropConnect
    <https://cs.nyu.edu/~wanli/dropc/>`_

    >>> x = np.ones((2, 3), np.float32); W = np.ones((4, 3), np.float32)
    >>> F.simplified_dropconnect(x, W, train=False).array
    array([[3., 3., 3., 3.],
           [3., 3., 3., 3.]], dtype=float32)
    """
    if isinstance(ratio, bool) or not isinstance(ratio, numbers.Real) or \
            not 0.0 <= ratio < 1.0:
        raise ValueError('simplified_dropconnect: expected 0 <= ratio < 1, '
                         'got {!r}'.format(ratio))
    if not train:
        ratio = 0.0
    if isinstance(mask, Variable):
        mask = mask.array
    if mask is not None and not backend.is_array(mask):
        raise TypeError('simplified_dropconnect: expected mask as an array, '
                        'got {}'.format(type(mask).__name__))
    args = (x, W) if b is None else (x, W, b)
    return SimplifiedDropconnect(ratio, mask, use_batchwise_mask).apply(
        args)[0]
