"""Bilinear function, Chainer's ``bilinear``.

``y[n, l] = sum_{j, k} e1[n, j] e2[n, k] W[j, k, l]
            + (e1 V1)[n, l] + (e2 V2)[n, l] + b[l]``.
"""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check

_prod = utils.size_of_shape


class BilinearFunction(FunctionNode):
    """The bilinear form of ``e1`` and ``e2`` with optional linear terms."""

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        n_in = type_check.eval(in_types.size())
        if n_in == 3:
            type_check.argname(in_types, ('e1', 'e2', 'W'))
        else:
            type_check.argname(in_types, ('e1', 'e2', 'W', 'V1', 'V2', 'b'))
        e1_type, e2_type, w_type = in_types[:3]
        type_check.expect(
            e1_type.dtype.kind == 'f',
            e1_type.ndim >= 2,
            e2_type.dtype == e1_type.dtype,
            e2_type.ndim >= 2,
            e1_type.shape[0] == e2_type.shape[0],
            w_type.dtype == e1_type.dtype,
            w_type.ndim == 3,
        )
        e1_shape = type_check.eval(e1_type.shape)
        e2_shape = type_check.eval(e2_type.shape)
        w_shape = type_check.eval(w_type.shape)
        for name, shape, axis in (('e1', e1_shape, 0), ('e2', e2_shape, 1)):
            if _prod(shape[1:]) != w_shape[axis]:
                raise type_check.InvalidType(
                    'prod({}.shape[1:]) == W.shape[{}]'.format(name, axis),
                    '{} != {}'.format(_prod(shape[1:]), w_shape[axis]))
        if n_in == 6:
            v1_type, v2_type, b_type = in_types[3:]
            type_check.expect(
                v1_type.dtype == e1_type.dtype,
                v1_type.ndim == 2,
                v1_type.shape[0] == w_type.shape[0],
                v1_type.shape[1] == w_type.shape[2],
                v2_type.dtype == e1_type.dtype,
                v2_type.ndim == 2,
                v2_type.shape[0] == w_type.shape[1],
                v2_type.shape[1] == w_type.shape[2],
                b_type.dtype == e1_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[2],
            )

    def forward(self, inputs):
        self.retain_inputs(tuple(range(min(len(inputs), 5))))
        e1, e2, W = inputs[:3]
        xp = backend.get_array_module(*inputs)
        n = e1.shape[0]
        J, K, L = W.shape
        e1 = e1.reshape(n, J)
        e2 = e2.reshape(n, K)
        # (n, J) x (J, K*L), then contract K per sample.
        t = xp.matmul(e1, W.reshape(J, K * L)).reshape(n, K, L)
        y = xp.matmul(e2[:, None, :], t)[:, 0, :]
        if len(inputs) == 6:
            V1, V2, b = inputs[3:]
            y += xp.matmul(e1, V1)
            y += xp.matmul(e2, V2)
            y += b
        return utils.force_array(y, W.dtype),

    def backward(self, indexes, grad_outputs):
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.array.transpose import transpose
        from cpuframe.functions.math.basic_math import matmul
        from cpuframe.functions.math.sum import sum as sum_
        retained = self.get_retained_inputs()
        e1, e2, W = retained[:3]
        gy, = grad_outputs
        n = e1.shape[0]
        J, K, L = W.shape
        e1r = reshape(e1, (n, J))
        e2r = reshape(e2, (n, K))

        def outer(a, width):
            # per sample, a[n, :] (x) gy[n, :], flattened to (n, width * L)
            return reshape(reshape(a, (n, width, 1)) * reshape(gy, (n, 1, L)),
                           (n, width * L))

        e2gy = outer(e2r, K) if 0 in indexes or 2 in indexes else None
        ret = []
        for i in indexes:
            if i == 0:
                g = matmul(e2gy, reshape(W, (J, K * L)), transb=True)
                if len(retained) == 5:
                    g = g + matmul(gy, retained[3], transb=True)
                ret.append(reshape(g, e1.shape))
            elif i == 1:
                wt = reshape(transpose(W, (1, 0, 2)), (K, J * L))
                g = matmul(outer(e1r, J), wt, transb=True)
                if len(retained) == 5:
                    g = g + matmul(gy, retained[4], transb=True)
                ret.append(reshape(g, e2.shape))
            elif i == 2:
                ret.append(reshape(matmul(e1r, e2gy, transa=True), (J, K, L)))
            elif i == 3:
                ret.append(matmul(e1r, gy, transa=True))
            elif i == 4:
                ret.append(matmul(e2r, gy, transa=True))
            else:
                ret.append(sum_(gy, axis=0))
        return tuple(ret)


def bilinear(e1, e2, W, V1=None, V2=None, b=None):
    """Bilinear function of two inputs.

    ``e1`` is ``(n, J)``, ``e2`` is ``(n, K)`` (more trailing axes are
    flattened), ``W`` is ``(J, K, L)``, and ``V1`` ``(J, L)``, ``V2``
    ``(K, L)``, ``b`` ``(L,)`` are either all given or all None::

        y[n, l] = sum_{j, k} e1[n, j] e2[n, k] W[j, k, l]
                  + sum_j e1[n, j] V1[j, l] + sum_k e2[n, k] V2[k, l] + b[l]

    The output is ``(n, L)``.  Chainer accepts float32 only; any floating
    dtype works here, the same for every input.

    >>> e1 = np.ones((2, 3), np.float32); e2 = np.ones((2, 4), np.float32)
    >>> F.bilinear(e1, e2, np.ones((3, 4, 5), np.float32)).shape
    (2, 5)
    """
    flags = [V1 is None, V2 is None, b is None]
    if any(flags):
        if not all(flags):
            raise ValueError(
                'bilinear: V1, V2 and b must all be given or all be None, '
                'got V1 {}, V2 {}, b {}'.format(
                    *['None' if f else 'given' for f in flags]))
        return BilinearFunction().apply((e1, e2, W))[0]
    return BilinearFunction().apply((e1, e2, W, V1, V2, b))[0]
