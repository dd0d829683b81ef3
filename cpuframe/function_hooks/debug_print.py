"""PrintHook: print what each function receives, forward and backward."""
import sys
import warnings

from cpuframe import backend, function_hook
from cpuframe.variable import Variable


class PrintHook(function_hook.FunctionHook):
    """Function hook printing the inputs (and output gradients) of functions.

    Before each forward it prints the function's label and a summary of
    every input array (shape, dtype, mean and standard deviation); before
    each backward, the same plus the gradients of the outputs.  An input
    not retained for backward prints as ``(removed)``.

    Args:
        sep: deprecated and ignored (as in Chainer).
        end (str): written after each printed item.
        file: where to write (default: ``sys.stdout`` at the time of
            printing).
        flush (bool): flush ``file`` after each function.
    """

    name = 'PrintHook'

    def __init__(self, sep=None, end='\n', file=None, flush=True):
        if sep is not None:
            warnings.warn('PrintHook: the sep argument is deprecated and '
                          'ignored', DeprecationWarning, stacklevel=2)
        self.sep = sep
        self.end = end
        self.file = file
        self.flush = flush

    def _print(self, file, msg):
        file.write(msg + self.end)

    def _process(self, function, in_data, out_grad=None):
        file = sys.stdout if self.file is None else self.file
        self._print(file, 'function\t{}'.format(function.label))
        self._print(file, 'input data')
        for x in in_data:
            if x is None:
                self._print(file, '(removed)')
            else:
                self._print(file, Variable(x, requires_grad=False)
                            .debug_print())
        if out_grad is not None:
            self._print(file, 'output gradient')
            for g in out_grad:
                if g is None:
                    self._print(file, Variable().debug_print())
                    continue
                xp = backend.get_array_module(g)
                v = Variable(xp.zeros_like(g), requires_grad=False)
                v.grad = g
                self._print(file, v.debug_print())
        if self.flush and hasattr(file, 'flush'):
            file.flush()

    def forward_preprocess(self, function, in_data):
        self._process(function, in_data)

    def backward_preprocess(self, function, in_data, out_grad):
        self._process(function, in_data, out_grad)
