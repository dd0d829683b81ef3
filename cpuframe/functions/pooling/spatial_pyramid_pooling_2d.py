"""Spatial pyramid pooling: a fixed-length vector from any input size."""
import math
import warnings

from cpuframe.functions.array.concat import concat
from cpuframe.functions.array.reshape import reshape
from cpuframe.functions.pooling.max_pooling_2d import (
    MaxPooling2D,
    max_pooling_2d,
)


def spatial_pyramid_pooling_2d(x, pyramid_height, pooling_class=None,
                               pooling=None):
    """Spatial pyramid pooling (He et al., 2014).

    Level ``i`` (``0 <= i < pyramid_height``) max-pools the input into a
    ``2**i`` by ``2**i`` grid with

        ``k = ceil(b / 2**i)``, ``p = (2**i * k - b) // 2``, stride ``k``,

    per axis (``b`` the input height or width, ``cover_all=True``); the
    pooled maps are flattened and concatenated along the channel axis.

    Args:
        x (Variable or array): Input of shape ``(n, c, h, w)``.
        pyramid_height (int): Number of pyramid levels.
        pooling_class: deprecated (as in Chainer 7, it warns
            ``DeprecationWarning``): ``MaxPooling2D`` for max pooling.
        pooling (str or None): Only ``'max'`` (the default) is supported.
            Give either ``pooling`` or ``pooling_class``, not both.

    Returns:
        Variable of shape ``(n, c * sum(4**i for i < pyramid_height), 1, 1)``.

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> F.spatial_pyramid_pooling_2d(x, 2).shape
    (1, 5, 1, 1)
    """
    if isinstance(pooling_class, str) and pooling is None:
        # cpuframe's earlier signature took ``pooling`` third.
        pooling, pooling_class = pooling_class, None
    if pooling_class is not None:
        warnings.warn('pooling_class argument is deprecated. Please use the '
                      'pooling argument.', DeprecationWarning, stacklevel=2)
        if pooling is not None:
            raise ValueError('spatial_pyramid_pooling_2d: specify the pooling '
                             'operation either by pooling_class or by '
                             'pooling, not both')
        if pooling_class is not MaxPooling2D:
            raise ValueError('spatial_pyramid_pooling_2d: only '
                             'pooling_class=MaxPooling2D is supported, got '
                             '{!r}'.format(pooling_class))
        pooling = 'max'
    if pooling is None:
        pooling = 'max'
    if pooling != 'max':
        raise ValueError('spatial_pyramid_pooling_2d: only pooling=\'max\' is '
                         'supported, got {!r}'.format(pooling))
    if int(pyramid_height) != pyramid_height or pyramid_height < 1:
        raise ValueError('spatial_pyramid_pooling_2d: expected pyramid_height '
                         '>= 1, got {!r}'.format(pyramid_height))
    if len(x.shape) != 4:
        raise ValueError('spatial_pyramid_pooling_2d: expected x of shape '
                         '(n, c, h, w), got shape {}'.format(tuple(x.shape)))
    n, _, h, w = x.shape
    ys = []
    for level in range(int(pyramid_height)):
        bins = 2 ** level
        kh = int(math.ceil(h / bins))
        kw = int(math.ceil(w / bins))
        pad = ((kh * bins - h) // 2, (kw * bins - w) // 2)
        y = max_pooling_2d(x, (kh, kw), None, pad, cover_all=True)
        ys.append(reshape(y, (n, -1, 1, 1)))
    if len(ys) == 1:
        return ys[0]
    return concat(ys, axis=1)
