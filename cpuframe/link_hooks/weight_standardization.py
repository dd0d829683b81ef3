"""WeightStandardization: standardize a link's weight per output channel.

Qiao et al., "Weight Standardization", https://arxiv.org/abs/1903.10520.
"""
from cpuframe import link_hook
from cpuframe.variable import Parameter


class WeightStandardization(link_hook.LinkHook):
    """During each forward of the link, its weight ``W`` is replaced by
    ``(W - mean) / sqrt(var + eps)``, with the mean and variance taken per
    output channel (over every axis but the first), and put back after.

    Meant for convolutions followed by group (or batch) normalization; it
    works on any link whose weight has an output-channel first axis
    (N-d convolutions, linear, embedding).  A lazily initialized weight is
    initialized from the first input.  Add it with ``link.add_hook``; it is
    not a context manager.

    Args:
        eps (float): added to the variance.
        weight_name (str): the weight's attribute name.
        name (str): the hook's name (``'WeightStandardization'``).
    """

    name = 'WeightStandardization'

    def __init__(self, *, eps=1e-5, weight_name='W', name=None):
        self.eps = eps
        self.weight_name = weight_name
        self.original_weight = None
        if name is not None:
            self.name = name

    def __enter__(self):
        raise NotImplementedError(
            'This hook is not supposed to be used as context manager.')

    def __exit__(self, *args):
        raise NotImplementedError

    def added(self, link):
        if link is None:
            raise ValueError('WeightStandardization: add it to a link with '
                             'link.add_hook(hook)')
        if not isinstance(getattr(link, self.weight_name, None), Parameter):
            raise ValueError(
                "Weight '{}' does not exist!".format(self.weight_name))

    def forward_preprocess(self, cb_args):
        from cpuframe.link_hooks.spectral_normalization import (
            SpectralNormalization,
        )
        link = cb_args.link
        if self.original_weight is not None:
            # The previous forward raised before forward_postprocess ran.
            object.__setattr__(link, self.weight_name, self.original_weight)
        weight = getattr(link, self.weight_name)
        if weight.array is None:
            x = cb_args.args[0] if cb_args.args else None
            if x is None:
                raise ValueError('Input variable does not exist!')
            link._initialize_params(SpectralNormalization._in_size(
                link, x, cb_args.kwargs or {}))
            weight = getattr(link, self.weight_name)
        self.original_weight = weight
        object.__setattr__(link, self.weight_name, self._standardize(weight))

    def forward_postprocess(self, cb_args):
        object.__setattr__(cb_args.link, self.weight_name,
                           self.original_weight)
        self.original_weight = None

    def _standardize(self, w):
        from cpuframe import functions as F
        flat = F.reshape(w, (w.shape[0], -1))
        mean = F.mean(flat, axis=1, keepdims=True)
        centred = flat - F.broadcast_to(mean, flat.shape)
        var = F.mean(centred * centred, axis=1, keepdims=True)
        std = F.sqrt(var + self.eps)
        return F.reshape(centred / F.broadcast_to(std, flat.shape), w.shape)
