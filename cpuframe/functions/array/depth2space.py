"""Rearrange channels into spatial blocks and back: depth2space,
space2depth."""
from cpuframe.variable import as_variable


def _check(X, r, name):
    X = as_variable(X)
    if not isinstance(r, int) or r < 1:
        raise ValueError('{}: r must be a positive int, got {!r}'.format(
            name, r))
    if X.ndim != 4:
        raise ValueError('{}: X must be 4-D (batch, channel, height, width), '
                         'got shape {}'.format(name, X.shape))
    return X


def depth2space(X, r):
    """Move channel blocks into ``r x r`` spatial blocks (pixel shuffle).

    ``(B, C * r * r, H, W) -> (B, C, H * r, W * r)``: the input channel
    ``(i * r + j) * C + c`` goes to output channel ``c`` at the offset
    ``(i, j)`` of each ``r x r`` block (TensorFlow's depth_to_space order).

    >>> F.depth2space(np.arange(4.).reshape(1, 4, 1, 1), 2).array
    array([[[[0., 1.],
             [2., 3.]]]])
    """
    from cpuframe.functions.array.reshape import reshape
    from cpuframe.functions.array.transpose import transpose
    X = _check(X, r, 'depth2space')
    b, c, h, w = X.shape
    if c % (r * r):
        raise ValueError('depth2space: the channel count {} must be '
                         'divisible by r * r = {}'.format(c, r * r))
    oc = c // (r * r)
    X = reshape(X, (b, r, r, oc, h, w))
    X = transpose(X, (0, 3, 4, 1, 5, 2))
    return reshape(X, (b, oc, h * r, w * r))


def space2depth(X, r):
    """The inverse of :func:`depth2space`.

    ``(B, C, H * r, W * r) -> (B, C * r * r, H, W)``: the offset ``(i, j)``
    of each ``r x r`` block of channel ``c`` goes to channel
    ``(i * r + j) * C + c``.

    >>> F.space2depth(np.arange(4.).reshape(1, 1, 2, 2), 2).array.ravel()
    array([0., 1., 2., 3.])
    """
    from cpuframe.functions.array.reshape import reshape
    from cpuframe.functions.array.transpose import transpose
    X = _check(X, r, 'space2depth')
    b, c, h, w = X.shape
    if h % r or w % r:
        raise ValueError('space2depth: height {} and width {} must be '
                         'divisible by r = {}'.format(h, w, r))
    oh, ow = h // r, w // r
    X = reshape(X, (b, c, oh, r, ow, r))
    X = transpose(X, (0, 3, 5, 1, 2, 4))
    return reshape(X, (b, r * r * c, oh, ow))
