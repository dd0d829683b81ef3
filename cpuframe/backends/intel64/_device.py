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


    def elementwise_update(self, rule, param):
        """``rule.update_core_cpu`` on flat NumPy views of the parameter.

        With the parameter, its gradient and every state array as mdarrays of
        one layout, the element-wise update runs on their physical buffers as
        plain NumPy arrays: each NumPy operation once, instead of once per
        operation through the mdarray protocol (~20 us each: most of a small
        model's step). Afterwards the padding of a blocked layout is zero
        again. False (nothing done) when that does not apply.

        The views of the parameter and the state, and which of them have
        padding, are kept on the rule (``_intel64_plan``, a ``_Plan``) while
        the same arrays hold the same buffers: a small model's step updates
        each parameter with a few microseconds of bookkeeping, and
        ``UpdateRule._update_direct`` asks the kept plan itself
        (``_Plan.update_direct``).
        """
        data = param.array
        if type(data) is not _pkg.mdarray:
            return False
        g = param._grad_var
        state = rule._state or {}
        plan = rule.__dict__.get('_intel64_plan')
        if plan is None or not plan.holds(data, state):
            plan = _Plan.make(data, state)
            rule._intel64_plan = plan
            if plan is None:
                return False
        return plan.run(rule, state, None if g is None else g._array, False)


class _Plan:
    """What ``elementwise_update`` keeps per parameter: the flat views of
    the parameter's and its state's buffers, and what they were made
    from (the arrays and their buffer addresses, checked per update)."""

    __slots__ = ('data', 'tensors', 'ptrs', 'kept', 'keys', 'ids',
                 'data_view', 'views', 'items', 'view_ids',
                 'padded', 'plain', 'shape')

    @classmethod
    def make(cls, data, state):
        """The plan of ``data`` and ``state``, or None when the parameter
        or a state array is not a float32 tensor of one layout."""
        from cpuframe.backend import is_array  # the backends' own floor
        if data.storage_dtype != 'float32':
            return None
        kept = []
        for key, value in state.items():
            if is_array(value):
                if not (_pkg.is_native_array(value) and
                        value.same_layout(data)):
                    return None
                kept.append((key, value, True))
            else:
                kept.append((key, value, False))
        plan = cls()
        plan.data = data
        plan.kept = tuple((key, value) for key, value, _ in kept)
        # (the state's keys and its values' identities in the dictionary's
        # order, compared per update in C: together they tie each key to its
        # value; the plan keeps the values, so their ids stay theirs)
        plan.keys = tuple(state)
        plan.ids = [id(value) for _, value, _ in kept]
        plan.tensors = (data,) + tuple(v for _, v, t in kept if t)
        plan.ptrs = _pkg.native().data_ptrs(plan.tensors)
        plan.data_view = data.raw_view()
        plan.views = {k: v.raw_view() if t else v for k, v, t in kept}
        plan.items = tuple(plan.views.items())
        plan.view_ids = [id(view) for view in plan.views.values()]
        plan.padded = tuple(t for t in plan.tensors if t.has_padding)
        plan.plain = data.is_plain
        plan.shape = tuple(data.shape)   # (an mdarray's shape never changes)
        return plan

    def holds(self, data, state):
        """Whether the views still view ``data``'s and ``state``'s buffers
        (same arrays, same buffers: a layout adopted in place moves a
        tensor to a new buffer)."""
        return self.data is data and \
            list(map(id, state.values())) == self.ids and \
            tuple(state) == self.keys and \
            _pkg._dnnl.data_ptrs(self.tensors) == self.ptrs

    def update_direct(self, rule, data, grad):
        """``UpdateRule._update_direct`` on the device: the update of
        ``data`` (the parameter's array) from ``grad`` (its gradient's
        array or None) through this plan, kept by an earlier
        ``elementwise_update``, where it still holds; the rule's step count
        ``t`` advanced just before the update runs (False: nothing done,
        ``t`` unchanged)."""
        state = rule._state
        if state is None or not self.holds(data, state):
            return False
        return self.run(rule, state, grad, True)

    def update_shared(self, rule, step, data, grad):
        """An optimizer's shared step (``UpdateRule._shared_step``) on the
        views, where the plan still holds: ``step.update(rule, views,
        data_view, grad_view)``, which takes the state and arrays it is
        given and advances ``t`` itself; False where nothing was done."""
        state = rule._state
        if state is None or not self.holds(data, state):
            return False
        grad_view = self._grad_view(grad)
        if grad_view is None or not step.update(
                rule, self.views, self.data_view, grad_view):
            return False
        for t in self.padded:
            t.zero_padding()
        return True

    def _grad_view(self, grad):
        # ``grad`` as a flat float32 view in the parameter's layout, or
        # None where the views cannot take it
        if isinstance(grad, numpy.ndarray):
            if grad.shape != self.shape or grad.dtype != numpy.float32:
                return None
            if self.plain:
                # (a gradient the NumPy path computed): read in NumPy order
                return grad.reshape(-1) if grad.flags.c_contiguous \
                    else numpy.ascontiguousarray(grad).reshape(-1)
            # A NumPy gradient of a re-laid-out weight (a small layer's
            # backward ran on NumPy): one reorder into the weight's layout,
            # then the same flat update.
            laid_out = _pkg.mdarray.empty_like(self.data)
            laid_out.copy_from(grad)
            return laid_out.raw_view()
        if grad is not None and _pkg.is_native_array(grad):
            if not grad.same_layout(self.data):  # (also: same storage dtype)
                return None
            return grad.raw_view()
        return None

    def run(self, rule, state, grad, direct):
        """The update on the views: ``rule.update_core_cpu``, or with
        ``direct`` the rule's ``_direct_cpu`` after ``t += 1``; False
        (nothing done) for a gradient the views cannot take."""
        grad_view = self._grad_view(grad)
        if grad_view is None:
            return False
        if direct:
            rule.t += 1
        flat = _FlatParam(self.data_view, grad_view)
        views = self.views
        rule._state = views
        try:
            if direct:
                # (_update_direct's case: the rule may take the views as
                # read here, UpdateRule._direct_cpu)
                rule._direct_cpu(flat, flat.array, grad_view)
            else:
                rule.update_core_cpu(flat)
        finally:
            rule._state = state
            if list(map(id, views.values())) != self.view_ids:
                # The update replaced or added a state entry (e.g.
                # amsgrad's vhat switched on): written back, plan dropped.
                rule._intel64_plan = None
                _write_back(views, self.items, state, self.data, flat)
        for t in self.padded:
            t.zero_padding()
        return True


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
