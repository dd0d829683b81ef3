"""The Intel64 device (``'@intel64'``), and its way of running element-wise
optimizer updates (on flat NumPy views of the buffers)."""
import sys

import numpy

from cpuframe.backends._base import Device
from cpuframe.backends._cpu import to_numpy

_pkg = sys.modules[__package__]  # the package: mdarray and the loaded module live there


_float16_warned = False


def _warn_float16_once():
    # float16 (Chainer's mixed16) has no fast CPU route: NumPy computes it in
    # software, about 40x slower than float32 for a small convnet here.
    global _float16_warned
    if _float16_warned:
        return
    _float16_warned = True
    import warnings

    from cpuframe.warnings import PerformanceWarning
    warnings.warn(
        "float16 arrays on '@intel64' stay NumPy arrays: oneDNN's routes "
        "here are float32 and bfloat16, and NumPy computes float16 in "
        "software, tens of times slower than float32. On CPUs use float32, "
        "or cpuframe.mixed_bf16 for mixed precision (config.dtype).",
        PerformanceWarning, stacklevel=4)


class Intel64Device(Device):
    """The oneDNN device (``'@intel64'``).

    float32 arrays of 1 to 12 dimensions sent here become ``mdarray``s;
    others (integer labels, float64, 0-dim) stay NumPy arrays, which the
    NumPy path computes as usual.
    """

    xp = numpy
    name = '@intel64'

    def __init__(self):
        _pkg.check_ideep_available()

    @property
    def supported_array_types(self):
        return (numpy.ndarray, numpy.generic, _pkg.mdarray)

    def send_array(self, array):
        if _pkg.is_native_array(array):
            return array
        array = to_numpy(array)
        if isinstance(array, numpy.ndarray) and \
                array.dtype == numpy.float32 and 1 <= array.ndim <= 12:
            return _pkg.mdarray.from_numpy(array)
        if isinstance(array, numpy.ndarray) and \
                array.dtype == numpy.float16 and array.ndim >= 1:
            _warn_float16_once()
        return array


    def elementwise_update(self, rule, param, direct=False):
        """``rule.update_core_cpu`` on flat NumPy views of the parameter.

        With the parameter, its gradient and every state array as mdarrays of
        one layout, the element-wise update runs on their physical buffers as
        plain NumPy arrays: each NumPy operation once, instead of once per
        operation through the mdarray protocol (~20 us each: most of a small
        model's step). Afterwards the padding of a blocked layout is zero
        again. False (nothing done) when that does not apply.

        The views of the parameter and the state, and which of them have
        padding, are kept on the rule (``_intel64_plan``) while the same
        arrays hold the same buffers: a small model's step updates each
        parameter with a few microseconds of bookkeeping.

        ``direct`` (``UpdateRule._update_direct``): only where the kept
        plan still holds, and the rule's step count ``t`` is advanced just
        before the update runs (False: nothing done, ``t`` unchanged).
        """
        data, grad = param.array, param.grad
        if not _pkg.is_native_array(data):
            return False
        state = rule._state or {}
        plan = getattr(rule, '_intel64_plan', None)
        if plan is None or not plan_holds(plan, data, state):
            if direct:
                return False
            plan = _make_plan(data, state)
            rule._intel64_plan = plan
            if plan is None:
                return False
        data_view, views, padded = plan[2], plan[4], plan[5]
        if _pkg.is_native_array(grad):
            if not grad.same_layout(data):  # (also: same storage dtype)
                return False
            grad_view = grad.raw_view()
        elif isinstance(grad, numpy.ndarray) and \
                grad.shape == data.shape and grad.dtype == numpy.float32:
            if data.is_plain:
                # (a bias gradient comes back as NumPy): read in NumPy order
                grad_view = numpy.ascontiguousarray(grad).reshape(-1)
            else:
                # A NumPy gradient of a re-laid-out weight (a small layer's
                # backward ran on NumPy): one reorder into the weight's
                # layout, then the same flat update.
                laid_out = _pkg.mdarray.empty_like(data)
                laid_out.copy_from(grad)
                grad_view = laid_out.raw_view()
        else:
            return False
        if direct:
            rule.t += 1
        flat = _FlatParam(data_view, grad_view)
        rule._state = views
        try:
            rule.update_core_cpu(flat)
        finally:
            rule._state = state
            if len(views) != len(plan[3]) or any(
                    views.get(key) is not view
                    for key, view in plan[6]):
                # The update replaced or added a state entry (e.g.
                # amsgrad's vhat switched on): written back, plan dropped.
                rule._intel64_plan = None
                _write_back(views, plan[6], state, data, flat)
        for t in padded:
            t.zero_padding()
        return True


def plan_holds(plan, data, state):
    """Whether the kept views still view ``data``'s and ``state``'s
    buffers (same arrays, same buffers: a layout adopted in place moves a
    tensor to a new buffer)."""
    if plan[0] is not data or plan[1] != data.data_ptr:
        return False
    kept = plan[3]
    if len(kept) != len(state):
        return False
    for key, value, ptr in kept:
        if state.get(key) is not value:
            return False
        if ptr is not None and value.data_ptr != ptr:
            return False
    return True


def _make_plan(data, state):
    """The views ``elementwise_update`` runs on, or None when the
    parameter or a state array is not a float32 tensor of one layout."""
    from cpuframe.backend import is_array  # the backends' own floor
    if data.storage_dtype != 'float32':
        return None
    kept = []
    for key, value in state.items():
        if is_array(value):
            if not (_pkg.is_native_array(value) and value.same_layout(data)):
                return None
            kept.append((key, value, value.data_ptr))
        else:
            kept.append((key, value, None))
    views = {k: v.raw_view() if p is not None else v for k, v, p in kept}
    padded = tuple(t for t in (data,) + tuple(v for _, v, p in kept
                                              if p is not None)
                   if t.has_padding)
    return (data, data.data_ptr, data.raw_view(), tuple(kept), views,
            padded, tuple(views.items()))


def _write_back(views, original, state, data, flat):
    """State entries an update made anew, back to the device."""
    original = dict(original)
    for key, value in views.items():
        if key in original and value is original[key]:
            continue
        if isinstance(value, numpy.ndarray) and \
                value.shape == flat.array.shape:
            t = _pkg.mdarray.empty_like(data)
            t.raw_view()[...] = value
            if t.has_padding:
                t.zero_padding()
            value = t
        state[key] = value


class _FlatParam:
    """What an element-wise update rule reads of a parameter, over flat
    NumPy views of an Intel64 parameter's buffers (see
    ``Intel64Device.elementwise_update``)."""

    __slots__ = ('array', 'grad')

    def __init__(self, array, grad):
        self.array = array
        self.grad = grad

    @property
    def data(self):
        return self.array

    @property
    def dtype(self):
        return self.array.dtype
