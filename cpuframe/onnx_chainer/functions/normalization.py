"""Normalizations."""
from cpuframe.onnx_chainer.functions._common import node, unsupported


def _fixed_batch_normalization(params):
    if getattr(params.func, 'axis', None) not in (None, (0, 2, 3), (0,)):
        raise unsupported(params, 'axis={!r}'.format(params.func.axis))
    return node(params, 'BatchNormalization', epsilon=float(params.func.eps))


def _batch_normalization(params):
    raise unsupported(params, 'batch statistics (train mode): export with '
                      'train=False, where the running averages are used')


def _lrn(params):
    f = params.func
    return node(params, 'LRN', size=int(f.n), bias=float(f.k),
                alpha=float(f.alpha) * int(f.n), beta=float(f.beta))


CONVERTERS = {
    'FixedBatchNormalization': _fixed_batch_normalization,
    'BatchNormalization': _batch_normalization,
    'LocalResponseNormalization': _lrn,
}
