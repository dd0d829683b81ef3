"""Fast Fourier transforms of complex data held as (real, imag) pairs."""
from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class FFT(FunctionNode):
    """``xp.fft.<method>`` along the last axis of ``real + 1j * imag``."""

    def __init__(self, method):
        if method not in ('fft', 'ifft'):
            raise ValueError("FFT: method must be 'fft' or 'ifft', got "
                             '{!r}'.format(method))
        self._method = method

    @property
    def label(self):
        return self._method

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('real', 'imag'))
        r_type, i_type = in_types
        type_check.expect(
            r_type.dtype.kind == 'f',
            r_type.ndim > 0,
            r_type.shape == i_type.shape,
            r_type.dtype == i_type.dtype,
        )

    def forward(self, inputs):
        real, imag = inputs
        xp = backend.get_array_module(real, imag)
        y = getattr(xp.fft, self._method)(real + 1j * imag)
        return (y.real.astype(real.dtype, copy=False),
                y.imag.astype(real.dtype, copy=False))

    def backward(self, indexes, grad_outputs):
        # Both transforms are symmetric linear maps M; for a real loss the
        # gradient of x = xr + i xi is conj(M) g = conj(M conj(g)), with
        # g = gr + i gi the gradient of the output.
        gr, gi = grad_outputs
        xp = backend.get_array_module(*[g.array for g in grad_outputs
                                        if g is not None])
        template = gr if gr is not None else gi
        if gr is None:
            gr = xp.zeros(template.shape, template.dtype)
        if gi is None:
            gi = xp.zeros(template.shape, template.dtype)
        zr, zi = FFT(self._method).apply((gr, -gi))
        return zr, -zi


def fft(x):
    """Discrete Fourier transform along the last axis.

    Args:
        x (tuple): ``(real, imag)``, the real and imaginary parts (arrays or
            Variables of one float dtype and shape).

    Returns:
        tuple: ``(real, imag)`` of the result.

    >>> r, i = F.fft((np.array([1., 0.], np.float32),
    ...               np.zeros(2, np.float32)))
    >>> r.array, i.array
    (array([1., 1.], dtype=float32), array([0., 0.], dtype=float32))
    """
    real, imag = x
    return FFT('fft').apply((real, imag))


def ifft(x):
    """Inverse discrete Fourier transform along the last axis (with the
    ``1/n`` factor), of ``x = (real, imag)``; returns ``(real, imag)``."""
    real, imag = x
    return FFT('ifft').apply((real, imag))
