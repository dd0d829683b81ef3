"""The shift operation (Wu et al., https://arxiv.org/abs/1711.08141)."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _pair(x):
    if hasattr(x, '__getitem__'):
        return tuple(x)
    return x, x


def _shifted(xp, x, oy, ox):
    """``x`` moved by ``(oy, ox)`` pixels: ``y[..., i, j] = x[..., i - oy,
    j - ox]``, zero where that is outside ``x``."""
    h, w = x.shape[-2:]
    y = xp.zeros_like(x)
    ys, ye = max(oy, 0), min(h + oy, h)
    xs, xe = max(ox, 0), min(w + ox, w)
    if ys < ye and xs < xe:
        y[..., ys:ye, xs:xe] = x[..., ys - oy:ye - oy, xs - ox:xe - ox]
    return y


class Shift(FunctionNode):
    """Moves each group of channels by one offset of a ``kh x kw`` grid.

    The channels are cut into ``kh * kw`` groups of ``c // (kh * kw)``
    (the last group takes the rest).  Group ``g`` moves by ``(g // kw -
    kh // 2, g % kw - kw // 2)`` times the dilation, except that the
    middle group and the last one swap offsets, so the last group (with
    the remainder channels) stays in place.  Its gradient is the shift
    with the opposite dilation.
    """

    def __init__(self, ksize=3, dilate=1):
        self.kh, self.kw = _pair(ksize)
        if self.kh % 2 != 1:
            raise ValueError('kh must be odd')
        if self.kw % 2 != 1:
            raise ValueError('kw must be odd')
        self.dy, self.dx = _pair(dilate)

    @property
    def label(self):
        return 'Shift'

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ('kh', 'kw')

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 4,
            x_type.shape[1] >= self.kh * self.kw,
        )

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        c = x.shape[1]
        groups = self.kh * self.kw
        size = c // groups
        middle = (groups - 1) // 2
        parts = []
        for i in range(groups):
            g = {middle: groups - 1, groups - 1: middle}.get(i, i)
            ky = g // self.kw - self.kh // 2
            kx = g % self.kw - self.kw // 2
            end = (i + 1) * size if i < groups - 1 else c
            parts.append(_shifted(xp, x[:, i * size:end], ky * self.dy,
                                  kx * self.dx))
        return xp.concatenate(parts, axis=1),

    def backward(self, indexes, grad_outputs):
        return shift(grad_outputs[0], ksize=(self.kh, self.kw),
                     dilate=(-self.dy, -self.dx)),


def shift(x, ksize=3, dilate=1):
    """Shift: a zero-FLOP, zero-parameter alternative to spatial
    convolutions.

    Args:
        x: input of shape ``(n, c, h, w)`` with ``c >= kh * kw``.
        ksize (int or pair of ints): the (odd) size of the grid of offsets.
        dilate (int or pair of ints): the step between offsets.

    Returns:
        ~cpuframe.Variable: of the shape of ``x`` (see :class:`Shift`).

    >>> x = np.arange(9, dtype=np.float32).reshape(1, 9, 1, 1)
    >>> F.shift(x).shape
    (1, 9, 1, 1)
    """
    return Shift(ksize, dilate).apply((x,))[0]
