"""Mixed-precision helper for old-style forward methods."""
import functools

import numpy


def _fp16_mixed_precision_helper(fn):
    """Decorate ``forward(self, inputs)`` to compute float16 in float32.

    float16 inputs are upcast to float32; when every floating input was
    float16, float32 outputs are cast back to float16.  Other dtypes pass
    through unchanged.
    """
    @functools.wraps(fn)
    def wrapper(self, in_data):
        all_half = all(x.dtype.kind != 'f' or x.dtype == numpy.float16
                       for x in in_data)
        upcast = tuple(x.astype(numpy.float32) if x.dtype == numpy.float16
                       else x for x in in_data)
        out_data = fn(self, upcast)
        if all_half:
            out_data = tuple(
                y.astype(numpy.float16)
                if y is not None and y.dtype == numpy.float32 else y
                for y in out_data)
        return out_data
    return wrapper
