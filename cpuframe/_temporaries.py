"""Which arrays are temporaries: the one home of fusion and donation.

cpuframe reuses an array in place only where nobody but cpuframe itself can
see it. Two features rest on that, and both ask this module:

- **Gradient donation** (the backward engine, ``variable._backprop``): a
  gradient the engine alone holds may be overwritten by the node consuming
  it (``FunctionNode.donated_grad_outputs``: relu and batch normalization
  write their input gradient over it) and a running sum the engine alone
  holds may take the next contribution in place
  (``FunctionNode.donated_grad_input``: Linear, the fused LSTM step and
  EmbedID add into it; MultiAdd sums into it). :func:`donated` answers.
- **relu fusion** (``F.relu``): a convolution output on the Intel64 device
  that is still deferred (not computed) and that no name, list or hook can
  reach may get relu folded into the convolution's primitive, and relu
  returns that same tensor. :func:`claimable_by_relu` answers;
  ``Sequential`` passes its running value so that each layer sees it as
  such a temporary.

The engine carries gradients as arrays where nothing records the backward
(:func:`donated_arrays` asks then, counting the array's references alone)
and as Variables otherwise (:func:`donated`).

The contract, written once:

1. "Nobody else can see it" is decided from reference counts
   (``sys.getrefcount``) of the Variable and of its array. The counts the
   machinery itself holds differ between Python versions and builds, so
   they are not written down: each rule measures them once, on a probe
   built exactly as the real objects are (:func:`_probe_engine_refs`,
   :func:`_calibrate_claims`), and more references than the probe had means
   someone else holds the object. The expressions that count must stay the
   same as the probe's: they live only here (``_ref_counts``,
   ``_probe_refs``), and callers pass what these functions count.
2. The array must own its buffer (no view, no NumPy memory under a device
   tensor, no deferred op reading it): :func:`owns_buffer`.
3. Never while the backward is recorded (double backprop): the engine asks
   only then, and the nodes are told nothing otherwise.
4. A function hook that sees the arrays (``backward_preprocess``) is a
   holder too: the engine builds the hook's arguments before asking, and
   relu does not fuse while a hook is active.

The native side of the same ideas (deferred values, settling them, the
relu folded into a convolution) is ``csrc/deferred.hpp``. The native
backward walk (``csrc/core.cpp``, ``donated_flags``) asks
:func:`donated_arrays`'s question without the calibration: its tuple is the
only reference it holds to a gradient, so "only the engine refers to it" is
a reference count of one there (and :func:`owns_buffer`).
"""
import sys

import numpy

from cpuframe.backends import intel64

# -- gradient donation (the backward engine) -----------------------------------


def _ref_counts(gys, i):
    # The references to gys[i] and to its array, as seen from here (a
    # tuple holds the Variable). The probe below counts the same way.
    g = gys[i]
    return sys.getrefcount(g), sys.getrefcount(g._array)


def _probe_engine_refs():
    from cpuframe.variable import Variable
    gys = (Variable(numpy.empty(1, numpy.float32), requires_grad=False),)
    return _ref_counts(gys, 0)


def owns_buffer(array):
    """Whether ``array`` alone holds its memory (a writeable ndarray that
    owns its data, or a device tensor with no view or deferred op on it)."""
    if isinstance(array, numpy.ndarray):
        return bool(array.flags.owndata and array.flags.writeable)
    return intel64.owns_buffer(array)


_ENGINE_REFS = None


def engine_refs():
    """What the engine's own references to a gradient count as (measured
    once, on a probe)."""
    global _ENGINE_REFS
    if _ENGINE_REFS is None:
        _ENGINE_REFS = _probe_engine_refs()
    return _ENGINE_REFS


def donated(gys):
    """Per gradient Variable of the tuple ``gys`` (None entries allowed):
    whether only the engine refers to it and its array owns its buffer."""
    refs = engine_refs()
    flags = []
    for i in range(len(gys)):
        if gys[i] is None or gys[i]._array is None:
            flags.append(False)
            continue
        n_var, n_array = _ref_counts(gys, i)
        flags.append(n_var <= refs[0] and n_array <= refs[1]
                     and owns_buffer(gys[i]._array))
    return tuple(flags)


def _array_ref_count(seq, i):
    # The references to the array seq[i] as seen from here (a tuple or list
    # holds it). The probe below counts the same way.
    return sys.getrefcount(seq[i])


_ENGINE_ARRAY_REFS = None


def donated_arrays(seq):
    """``donated`` for a tuple or list of gradient arrays (the engine's own
    where nothing records the backward, ``variable._backprop``): per
    array, whether only ``seq`` refers to it and it owns its buffer."""
    global _ENGINE_ARRAY_REFS
    refs = _ENGINE_ARRAY_REFS
    if refs is None:
        probe = (numpy.empty(1, numpy.float32),)
        refs = _ENGINE_ARRAY_REFS = _array_ref_count(probe, 0)
    flags = []
    for i in range(len(seq)):
        a = seq[i]
        if a is None:
            flags.append(False)
            continue
        a = None
        flags.append(_array_ref_count(seq, i) <= refs and
                     owns_buffer(seq[i]))
    return tuple(flags)


# -- relu fusion (F.relu on a deferred convolution output) ---------------------


def _probe_refs(x):
    # Counted from a function's own frame where ``x`` is a parameter: the
    # same expressions F.relu evaluates on its argument.
    return sys.getrefcount(x), sys.getrefcount(x._array)


_CLAIM_REFS = False  # not measured yet; None: this Python cannot tell


def _calibrate_claims():
    """References seen for a temporary Variable passed to a function; None
    (never fuse) where a Variable held by a name does not count more."""
    from cpuframe.variable import Variable
    temp = _probe_refs(Variable(numpy.zeros(1, numpy.float32)))
    held = Variable(numpy.zeros(1, numpy.float32))
    seen = _probe_refs(held)
    if seen[0] <= temp[0]:
        return None
    return temp


def claimable_by_relu(x, n_var, n_array):
    """Whether relu may fold itself into the computation of ``x``.

    ``n_var``/``n_array``: ``sys.getrefcount`` of the Variable ``x`` and of
    its array, counted in relu's own frame as :func:`_probe_refs` counts.
    True when ``x`` is a temporary (no name, list or hook holds it or its
    array; relu's frame is all) whose array is a device tensor with deferred
    values: relu may then return that tensor with relu applied as the
    convolution writes it, and nobody can see the values without relu.
    """
    global _CLAIM_REFS
    if _CLAIM_REFS is False:
        _CLAIM_REFS = _calibrate_claims()
    if _CLAIM_REFS is None:
        return False
    return n_var <= _CLAIM_REFS[0] and n_array <= _CLAIM_REFS[1] and \
        intel64.is_native_array(x._array) and \
        intel64.native().is_pending(x._array)
