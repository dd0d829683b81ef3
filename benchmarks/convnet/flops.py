"""FLOP counts of the convnet-benchmarks models, from the layer shapes.

The convention of convnet-benchmarks: FLOPs = 2 x multiply-accumulates of the
convolution and fully connected layers, forward pass only; biases,
activations, pooling and normalization are not counted.  A forward+backward
iteration counts as 3 x forward (backward data + backward weights each cost
what the forward costs).

A convolution with weights ``(C_out, C_in / groups, kh, kw)`` producing
``(N, C_out, H_out, W_out)`` does ``N * C_out * H_out * W_out * C_in / groups *
kh * kw`` MACs; a linear layer ``(N, in) -> (N, out)`` does ``N * in * out``.
``count_flops`` measures the shapes by running the model once, so what is
counted is what runs.
"""
import collections

import numpy

import cpuframe
from cpuframe import links as L

#: A forward+backward iteration costs this many forward passes.
FWDBWD_FACTOR = 3

#: One counted layer: its link path (``/conv1``), ``'conv'`` or ``'linear'``,
#: its MACs for the whole batch, and its input and output shapes.
Layer = collections.namedtuple(
    'Layer', ['name', 'kind', 'macs', 'in_shape', 'out_shape'])


def conv2d_macs(batch, in_channels, out_channels, ksize, out_size, groups=1):
    """MACs of a 2-D convolution: ``ksize`` and ``out_size`` are (h, w) or ints."""
    kh, kw = _pair(ksize)
    oh, ow = _pair(out_size)
    return batch * out_channels * oh * ow * (in_channels // groups) * kh * kw


def linear_macs(batch, in_size, out_size):
    """MACs of a fully connected layer."""
    return batch * in_size * out_size


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _layer_macs(link, y):
    # W is (out, in / groups, kh, kw) or (out, in): every output element
    # takes one MAC per element of one filter.
    w = link.W.array
    return int(numpy.prod(y.shape)) * int(numpy.prod(w.shape[1:]))


def count_layers(model, x):
    """Run ``model(x)`` once (no graph, NumPy path) and list its counted layers.

    Every ``Convolution2D`` and ``Linear`` link of ``model`` is recorded in
    call order.  Returns a list of ``Layer``.
    """
    layers = []
    wrapped = []
    for name, link in model.namedlinks():
        if not isinstance(link, (L.Convolution2D, L.Linear)):
            continue
        kind = 'conv' if isinstance(link, L.Convolution2D) else 'linear'
        original = link.forward

        def forward(h, *args, _link=link, _name=name, _kind=kind,
                    _original=original, **kwargs):
            y = _original(h, *args, **kwargs)
            layers.append(Layer(_name, _kind, _layer_macs(_link, y),
                                tuple(h.shape), tuple(y.shape)))
            return y

        # An instance attribute shadows the class's forward for this link
        # only; deleting it afterwards restores the link exactly.
        object.__setattr__(link, 'forward', forward)
        wrapped.append(link)
    try:
        with cpuframe.using_config('use_ideep', 'never'), \
                cpuframe.using_config('train', False), \
                cpuframe.no_backprop_mode():
            model(x)
    finally:
        for link in wrapped:
            object.__delattr__(link, 'forward')
    return layers


def count_flops(model, x):
    """Forward FLOPs (2 x MACs of conv and fc layers) of ``model(x)``."""
    return 2 * sum(layer.macs for layer in count_layers(model, x))


def model_flops(model, insize, batch=1):
    """Forward FLOPs of ``model`` on a ``(batch, 3, insize, insize)`` input."""
    x = numpy.zeros((batch, 3, insize, insize), dtype=numpy.float32)
    return count_flops(model, x)
