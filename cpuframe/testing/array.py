"""Array assertions (``chainer.testing.array``)."""
import io

import numpy


def _to_numpy(x):
    from cpuframe import backend
    from cpuframe.variable import Variable
    if isinstance(x, Variable):
        x = x.array
    if x is None:
        raise TypeError('assert_allclose: got None instead of an array')
    x = backend.cpu_device.send(x) if hasattr(x, 'shape') else x
    return numpy.asarray(x)


def assert_allclose(x, y, atol=1e-5, rtol=1e-4, verbose=True):
    """Assert ``|x - y| <= atol + rtol * |y|`` elementwise.

    Takes NumPy, CuPy and Intel64 arrays, Variables and scalars.  On failure
    the message adds the shapes, dtypes and the worst element's index,
    values and errors.
    """
    x = _to_numpy(x)
    y = _to_numpy(y)
    try:
        numpy.testing.assert_allclose(x, y, atol=atol, rtol=rtol,
                                      verbose=verbose)
    except AssertionError as e:
        f = io.StringIO()
        f.write(str(e) + '\n\n')
        f.write('assert_allclose failed: \n'
                '  shape: {} {}\n'
                '  dtype: {} {}\n'.format(x.shape, y.shape, x.dtype, y.dtype))
        if x.shape == y.shape and x.size:
            xx = numpy.atleast_1d(x).astype(numpy.float64)
            yy = numpy.atleast_1d(y).astype(numpy.float64)
            err = numpy.abs(xx - yy)
            tol = atol + rtol * numpy.abs(yy)
            with numpy.errstate(invalid='ignore'):
                excess = numpy.where(numpy.isnan(err), numpy.inf, err - tol)
            i = numpy.unravel_index(numpy.argmax(excess), err.shape)
            rel = 'inf' if yy[i] == 0 else err[i] / abs(yy[i])
            f.write('  i: {}\n'
                    '  x[i]: {}\n'
                    '  y[i]: {}\n'
                    '  relative error[i]: {}\n'
                    '  absolute error[i]: {}\n'.format(
                        i, xx[i], yy[i], rel, err[i]))
        with numpy.printoptions(threshold=10000):
            f.write('x: ' + numpy.array2string(x, prefix='x: ') + '\n')
            f.write('y: ' + numpy.array2string(y, prefix='y: ') + '\n')
        raise AssertionError(f.getvalue()) from None


def _as_noncontiguous_array(array):
    """A non-C-contiguous copy of a NumPy/CuPy array (or of each array in a
    tuple/list).

    Arrays of one element or fewer, ``None`` and Intel64 arrays (which are
    always dense) are returned as they are.
    """
    if isinstance(array, (list, tuple)):
        return type(array)(_as_noncontiguous_array(a) for a in array)
    if array is None:
        return None
    from cpuframe import backend
    from cpuframe.backends import cuda
    if not isinstance(array, numpy.ndarray) and \
            not cuda.is_cupy_array(array):
        return array
    if array.size <= 1 or array.ndim == 0:
        return array
    xp = backend.get_array_module(array)
    slices = (slice(None, None, 2),) * array.ndim
    buffer = xp.empty(tuple(2 * s for s in array.shape), dtype=array.dtype)
    buffer[slices] = array
    out = buffer[slices]
    assert not out.flags.c_contiguous
    return out
