"""The shape shared by the special functions of one float input computed by
the NumPy kernels of :mod:`._special` (lgamma, digamma, erfinv, ...)."""
from cpuframe.functions.math import _special
from cpuframe.functions.math._unary import UnaryUfunc


class SpecialUnary(UnaryUfunc):
    """``y = kernel(x)``; subclasses set ``kernel`` (a name in
    ``_special._KERNELS``), ``retain`` and ``grad`` as for UnaryUfunc."""

    kernel = None

    @property
    def label(self):
        return self.kernel

    def forward(self, inputs):
        x, = inputs
        if self.retain == 'x':
            self.retain_inputs((0,))
        else:
            self.retain_outputs((0,))
        return _special.apply_kernel(self.kernel, x.dtype, x),
