"""Sampling grid of a spatial transformer from affine parameters."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


def _target_points(xp, dtype, shape):
    """``(3, H * W)``: the target grid ``(x_t, y_t, 1)`` in ``[-1, 1]``."""
    h, w = shape
    ys, xs = xp.meshgrid(xp.linspace(-1, 1, h, dtype=dtype),
                         xp.linspace(-1, 1, w, dtype=dtype), indexing='ij')
    return xp.concatenate([xs.reshape(1, -1), ys.reshape(1, -1),
                           xp.ones((1, h * w), dtype=dtype)], axis=0)


class SpatialTransformerGrid(FunctionNode):
    """``grid[n] = theta[n] @ (x_t, y_t, 1)`` over the target points.

    Linear in ``theta``: the gradient is a product with the (constant)
    target points, and so is its own gradient.
    """

    def __init__(self, output_shape):
        shape = tuple(output_shape)
        if len(shape) != 2 or any(int(s) != s or s < 1 for s in shape):
            raise ValueError('spatial_transformer_grid: output_shape must be '
                             'a pair of positive ints, got {!r}'.format(
                                 output_shape))
        self.output_shape = tuple(int(s) for s in shape)

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('theta',))
        theta_type, = in_types
        type_check.expect(theta_type.dtype.kind == 'f',
                          theta_type.ndim == 3,
                          theta_type.shape[1] == 2,
                          theta_type.shape[2] == 3)

    def forward(self, inputs):
        theta, = inputs
        xp = backend.get_array_module(theta)
        points = _target_points(xp, theta.dtype, self.output_shape)
        self._points = points
        grid = xp.matmul(theta, points)
        return grid.reshape((theta.shape[0], 2) + self.output_shape),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.math.basic_math import matmul
        gy, = grad_outputs
        n = gy.shape[0]
        g = reshape(gy, (n, 2, -1))
        return matmul(g, self._points.T),


def spatial_transformer_grid(theta, output_shape, **kwargs):
    """2D spatial transformer grid.

    Generates the sampling grid of a 2D affine spatial transformer: for
    each target pixel ``(x_t, y_t)`` (normalized to ``[-1, 1]``, ``-1``
    the first pixel's center and ``1`` the last's), the source coordinates
    ``(x_s, y_s) = theta @ (x_t, y_t, 1)``.  Feed the grid to
    :func:`spatial_transformer_sampler`.

    See: `Spatial Transformer Networks
    <https://arxiv.org/abs/1506.02025>`_

    Args:
        theta (Variable or array): Affine parameters ``(n, 2, 3)``.
        output_shape (tuple of ints): ``(out_h, out_w)`` of the grid.

    Returns:
        Variable of shape ``(n, 2, out_h, out_w)``: channel 0 holds
        ``x_s`` (the width axis), channel 1 ``y_s``.

    >>> theta = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)
    >>> F.spatial_transformer_grid(theta, (2, 3)).array[0, 0]
    array([[-1.,  0.,  1.],
           [-1.,  0.,  1.]], dtype=float32)
    """
    if kwargs:
        raise TypeError('spatial_transformer_grid() got unexpected keyword '
                        'argument(s) {}'.format(', '.join(sorted(kwargs))))
    return SpatialTransformerGrid(output_shape).apply((theta,))[0]
