"""What the convnet and RNN harnesses share for their bfloat16 paths
(``intel64_bf16``, ``torch_bf16``): the mode's specifier and support reports,
the count of op outputs by storage dtype, and marking the weights written
once per iteration; ``count_routes`` (which route each op call took) and
``one_line`` for the workers' error reports. Loaded by path from
``benchmarks/*/run.py``."""
from pathlib import Path


def one_line(e):
    """An exception as one line: 'Type: first line of its message'."""
    text = '{}: {}'.format(type(e).__name__, e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def dtype_name(dtype):
    """'float32', 'mixed_bf16', ... for a ``config.dtype`` value."""
    import numpy
    try:
        if isinstance(dtype, (type, str, numpy.dtype)):
            return numpy.dtype(dtype).name
    except TypeError:
        pass
    text = repr(dtype)  # the mixed specifiers: "dtype('mixed_bf16')"
    return text[len("dtype('"):-2] if text.startswith("dtype('") else text


def mixed_bf16(cpuframe):
    """``cpuframe.mixed_bf16``, or a clear error when this cpuframe has none."""
    spec = getattr(cpuframe, 'mixed_bf16', None)
    if spec is None:
        raise RuntimeError(
            'this cpuframe ({}) has no bfloat16 mixed mode (cpuframe.mixed_bf16);'
            ' the intel64_bf16 path needs it'.format(Path(cpuframe.__file__).parent))
    return spec


def bf16_support(intel64):
    """``intel64.bf16_support()`` (native / AMX / mode) when this cpuframe has it."""
    fn = getattr(intel64, 'bf16_support', None)
    if fn is None:
        return None
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - informational only
        return {'error': one_line(e)}


def torch_bf16_support(torch):
    """What PyTorch says about bfloat16 on this CPU (informational)."""
    out = {}
    for key, fn in (
            ('mkldnn_bf16_supported',
             lambda: bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())),
            ('cpu_capability', lambda: torch.backends.cpu.get_cpu_capability())):
        try:
            out[key] = fn()
        except Exception as e:  # noqa: BLE001 - informational only
            out[key] = 'unknown ({})'.format(one_line(e))
    return out


def torch_autocast(torch, bf16):
    """The torch_bf16 path's context (CPU autocast to bfloat16) when
    ``bf16``, else one that does nothing."""
    if bf16:
        return torch.autocast('cpu', dtype=torch.bfloat16)
    import contextlib
    return contextlib.nullcontext()


def count_storage(runner):
    """Count the op outputs stored in bfloat16 during one iteration.

    Wraps ``FunctionNode.apply``; an Intel64 array says how it is stored in
    ``storage_dtype`` ('bfloat16' or 'float32'). Sets
    ``runner.storage = {dtype: count}``; returns the function that unwraps.
    """
    from cpuframe.function_node import FunctionNode
    original = FunctionNode.__dict__.get('apply')
    if original is None:
        return None
    counts = runner.storage = {}

    def apply(self, inputs):
        outputs = original(self, inputs)
        for y in outputs:
            array = getattr(y, 'array', None)
            dtype = getattr(array, 'storage_dtype', None)
            if dtype is None and array is not None:
                dtype = str(getattr(array, 'dtype', '?'))
            counts[str(dtype)] = counts.get(str(dtype), 0) + 1
        return outputs

    FunctionNode.apply = apply

    def restore():
        FunctionNode.apply = original
    return restore


def count_routes(runner):
    """Count, per op, how often the intel64 and the NumPy route were taken.

    Watches the route choice every ``apply`` makes
    (``function_node._route_watch``) for one iteration; sets
    ``runner.routes = {label: {'intel64': n, 'numpy': n}}`` and returns the
    function that stops watching.
    """
    from cpuframe import function_node
    watch = getattr(function_node, '_route_watch', None)
    if watch is None:
        return None
    counts = runner.routes = {}

    def seen(node, chosen):
        entry = counts.setdefault(node.label, {'intel64': 0, 'numpy': 0})
        entry['intel64' if chosen else 'numpy'] += 1

    previous = watch[0]
    watch[0] = seen

    def restore():
        watch[0] = previous
    return restore


def chain(*restores):
    """One function that calls every non-None restore, last first."""
    def restore():
        for r in reversed(restores):
            if r is not None:
                r()
    return restore


def touch_weights(model):
    """Mark every weight of a cpuframe model on the Intel64 device written.

    The harnesses time fwd+bwd without an optimizer update; after an update
    the mixed_bf16 mode makes its bf16 copy of each weight again, as
    PyTorch's autocast casts once per region. Marking them written before
    each iteration makes the bf16 path pay that conversion, as in training.
    """
    for p in model.params():
        if hasattr(p.array, 'touch'):
            p.array.touch()
