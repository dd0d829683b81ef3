"""Random matrices with given singular values
(``chainer.testing.generate_matrix``)."""
import numpy


def generate_matrix(shape, dtype=float, **kwargs):
    """A random array of ``shape`` ``(B..., M, N)`` whose matrices have the
    singular values ``singular_values`` (broadcastable to
    ``(B..., min(M, N))``, non-negative)."""
    if len(shape) < 2:
        raise ValueError('generate_matrix: shape {} has too few axes for '
                         'matrices'.format(shape))
    dtype = numpy.dtype(dtype)
    if dtype.kind not in 'fc':
        raise TypeError('generate_matrix: dtype {} is not supported'.format(
            dtype))
    if 'singular_values' not in kwargs:
        raise TypeError('generate_matrix: singular_values is not given')
    s = numpy.asarray(kwargs.pop('singular_values'))
    if kwargs:
        raise TypeError('generate_matrix: unexpected keyword arguments: '
                        '{}'.format(', '.join(sorted(kwargs))))
    if not numpy.isrealobj(s):
        raise TypeError('generate_matrix: singular_values must be real')
    if (s < 0).any():
        raise ValueError('generate_matrix: negative singular value given')
    if 0 in shape:
        return numpy.empty(shape, dtype=dtype)
    a = numpy.random.standard_normal(shape)
    if dtype.kind == 'c':
        a = a + 1j * numpy.random.standard_normal(shape)
    u, _, vh = numpy.linalg.svd(a, full_matrices=False)
    sv = numpy.broadcast_to(s, u.shape[:-2] + (u.shape[-1],))
    return numpy.einsum('...ik,...k,...kj->...ij', u, sv, vh).astype(dtype)
