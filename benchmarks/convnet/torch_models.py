"""The convnet-benchmarks models for PyTorch, the comparison target.

Imported only when torch is installed; cpuframe never depends on torch.
Each network mirrors its twin in ``models.py`` layer for layer, with the
same attribute names, so ``copy_params_from_cpuframe`` can move weights across
(``/conv1/W`` -> ``conv1.weight``, ``gamma``/``beta`` -> ``weight``/``bias``)
and both give the same outputs in inference mode.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn


def _conv(in_channels, out_channels, ksize, stride=1, pad=0, bias=True):
    conv = nn.Conv2d(in_channels, out_channels, ksize, stride=stride,
                     padding=pad, bias=bias)
    nn.init.kaiming_normal_(conv.weight, mode='fan_in', nonlinearity='relu')
    if bias:
        nn.init.zeros_(conv.bias)
    return conv


def _linear(in_size, out_size):
    # cpuframe's default: LeCun normal weights, zero bias.
    fc = nn.Linear(in_size, out_size)
    nn.init.normal_(fc.weight, std=1.0 / math.sqrt(in_size))
    nn.init.zeros_(fc.bias)
    return fc


def _out(size, ksize, stride=1, pad=0, ceil=False):
    if ceil:
        return (size + 2 * pad - ksize + stride - 1) // stride + 1
    return (size + 2 * pad - ksize) // stride + 1


class AlexNet(nn.Module):
    def __init__(self, insize=224, n_class=1000):
        super().__init__()
        s = _out(_out(_out(_out(insize, 11, 4, 2), 3, 2), 3, 2), 3, 2)
        self.conv1 = _conv(3, 64, 11, stride=4, pad=2)
        self.conv2 = _conv(64, 192, 5, pad=2)
        self.conv3 = _conv(192, 384, 3, pad=1)
        self.conv4 = _conv(384, 256, 3, pad=1)
        self.conv5 = _conv(256, 256, 3, pad=1)
        self.fc6 = _linear(256 * s * s, 4096)
        self.fc7 = _linear(4096, 4096)
        self.fc8 = _linear(4096, n_class)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.conv1(x)), 3, 2)
        h = F.max_pool2d(F.relu(self.conv2(h)), 3, 2)
        h = F.relu(self.conv3(h))
        h = F.relu(self.conv4(h))
        h = F.max_pool2d(F.relu(self.conv5(h)), 3, 2)
        h = torch.flatten(h, 1)
        h = F.relu(self.fc6(F.dropout(h, 0.5, self.training)))
        h = F.relu(self.fc7(F.dropout(h, 0.5, self.training)))
        return self.fc8(h)


class Overfeat(nn.Module):
    def __init__(self, insize=231, n_class=1000):
        super().__init__()
        s = _out(_out(_out(_out(_out(insize, 11, 4), 2, 2), 5), 2, 2), 2, 2)
        self.conv1 = _conv(3, 96, 11, stride=4)
        self.conv2 = _conv(96, 256, 5)
        self.conv3 = _conv(256, 512, 3, pad=1)
        self.conv4 = _conv(512, 1024, 3, pad=1)
        self.conv5 = _conv(1024, 1024, 3, pad=1)
        self.fc6 = _linear(1024 * s * s, 3072)
        self.fc7 = _linear(3072, 4096)
        self.fc8 = _linear(4096, n_class)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.conv1(x)), 2, 2)
        h = F.max_pool2d(F.relu(self.conv2(h)), 2, 2)
        h = F.relu(self.conv3(h))
        h = F.relu(self.conv4(h))
        h = F.max_pool2d(F.relu(self.conv5(h)), 2, 2)
        h = torch.flatten(h, 1)
        h = F.relu(self.fc6(F.dropout(h, 0.5, self.training)))
        h = F.relu(self.fc7(F.dropout(h, 0.5, self.training)))
        return self.fc8(h)


VGG_A_CONFIG = (64, 'M', 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M')


class VGGA(nn.Module):
    def __init__(self, insize=224, n_class=1000):
        super().__init__()
        s, in_channels, i = insize, 3, 0
        for v in VGG_A_CONFIG:
            if v == 'M':
                s = _out(s, 2, 2)
            else:
                i += 1
                setattr(self, 'conv{}'.format(i), _conv(in_channels, v, 3, pad=1))
                in_channels = v
        self.fc6 = _linear(512 * s * s, 4096)
        self.fc7 = _linear(4096, 4096)
        self.fc8 = _linear(4096, n_class)

    def forward(self, x):
        h, i = x, 0
        for v in VGG_A_CONFIG:
            if v == 'M':
                h = F.max_pool2d(h, 2, 2)
            else:
                i += 1
                h = F.relu(getattr(self, 'conv{}'.format(i))(h))
        h = torch.flatten(h, 1)
        h = F.dropout(F.relu(self.fc6(h)), 0.5, self.training)
        h = F.dropout(F.relu(self.fc7(h)), 0.5, self.training)
        return self.fc8(h)


class Inception(nn.Module):
    def __init__(self, in_channels, out1, proj3, out3, proj5, out5, proj_pool):
        super().__init__()
        self.conv1 = _conv(in_channels, out1, 1)
        self.proj3 = _conv(in_channels, proj3, 1)
        self.conv3 = _conv(proj3, out3, 3, pad=1)
        self.proj5 = _conv(in_channels, proj5, 1)
        self.conv5 = _conv(proj5, out5, 5, pad=2)
        self.projp = _conv(in_channels, proj_pool, 1)

    def forward(self, x):
        out1 = F.relu(self.conv1(x))
        out3 = F.relu(self.conv3(F.relu(self.proj3(x))))
        out5 = F.relu(self.conv5(F.relu(self.proj5(x))))
        outp = F.relu(self.projp(F.max_pool2d(x, 3, 1, padding=1)))
        return torch.cat((out1, out3, out5, outp), 1)


GOOGLENET_INCEPTIONS = (
    ('inc3a', 192, 64, 96, 128, 16, 32, 32),
    ('inc3b', 256, 128, 128, 192, 32, 96, 64),
    ('inc4a', 480, 192, 96, 208, 16, 48, 64),
    ('inc4b', 512, 160, 112, 224, 24, 64, 64),
    ('inc4c', 512, 128, 128, 256, 24, 64, 64),
    ('inc4d', 512, 112, 144, 288, 32, 64, 64),
    ('inc4e', 528, 256, 160, 320, 32, 128, 128),
    ('inc5a', 832, 256, 160, 320, 32, 128, 128),
    ('inc5b', 832, 384, 192, 384, 48, 128, 128),
)


def _googlenet_pool(h):
    return F.max_pool2d(h, 3, 2, ceil_mode=True)


class GoogLeNet(nn.Module):
    def __init__(self, insize=224, n_class=1000):
        super().__init__()
        self.conv1 = _conv(3, 64, 7, stride=2, pad=3)
        self.conv2_reduce = _conv(64, 64, 1)
        self.conv2 = _conv(64, 192, 3, pad=1)
        for name, *args in GOOGLENET_INCEPTIONS:
            setattr(self, name, Inception(*args))
        # Chainer's LRN: x / (k + alpha * sum x^2)^beta; PyTorch divides
        # alpha by the window size n.
        self.lrn = nn.LocalResponseNorm(5, alpha=5e-4, beta=0.75, k=2.0)
        self.fc = _linear(1024, n_class)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = self.lrn(_googlenet_pool(h))
        h = F.relu(self.conv2_reduce(h))
        h = F.relu(self.conv2(h))
        h = _googlenet_pool(self.lrn(h))
        h = self.inc3b(self.inc3a(h))
        h = _googlenet_pool(h)
        for name in ('inc4a', 'inc4b', 'inc4c', 'inc4d', 'inc4e'):
            h = getattr(self, name)(h)
        h = _googlenet_pool(h)
        h = self.inc5b(self.inc5a(h))
        h = F.avg_pool2d(h, h.shape[2:])
        h = torch.flatten(h, 1)
        return self.fc(F.dropout(h, 0.4, self.training))


def _bn(size):
    return nn.BatchNorm2d(size)


class Bottleneck(nn.Module):
    def __init__(self, in_channels, mid_channels, out_channels, stride=1):
        super().__init__()
        self.conv1 = _conv(in_channels, mid_channels, 1, bias=False)
        self.bn1 = _bn(mid_channels)
        self.conv2 = _conv(mid_channels, mid_channels, 3, stride=stride, pad=1,
                           bias=False)
        self.bn2 = _bn(mid_channels)
        self.conv3 = _conv(mid_channels, out_channels, 1, bias=False)
        self.bn3 = _bn(out_channels)
        if stride != 1 or in_channels != out_channels:
            self.conv_sc = _conv(in_channels, out_channels, 1, stride=stride,
                                 bias=False)
            self.bn_sc = _bn(out_channels)
        else:
            self.conv_sc = None

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        shortcut = x if self.conv_sc is None else self.bn_sc(self.conv_sc(x))
        return F.relu(h + shortcut)


RESNET50_STAGES = (
    ('res2', 3, 64, 256, 1),
    ('res3', 4, 128, 512, 2),
    ('res4', 6, 256, 1024, 2),
    ('res5', 3, 512, 2048, 2),
)


class ResNet50(nn.Module):
    def __init__(self, insize=224, n_class=1000):
        super().__init__()
        self.conv1 = _conv(3, 64, 7, stride=2, pad=3, bias=False)
        self.bn1 = _bn(64)
        in_channels = 64
        for name, n_blocks, mid, out, stride in RESNET50_STAGES:
            setattr(self, name, nn.ModuleList([
                Bottleneck(in_channels if i == 0 else out, mid, out,
                           stride if i == 0 else 1)
                for i in range(n_blocks)]))
            in_channels = out
        self.fc = _linear(2048, n_class)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.max_pool2d(h, 3, 2, padding=1)
        for name, _, _, _, _ in RESNET50_STAGES:
            for block in getattr(self, name):
                h = block(h)
        h = F.avg_pool2d(h, h.shape[2:])
        return self.fc(torch.flatten(h, 1))


MODELS = {
    'alexnet': AlexNet,
    'overfeat': Overfeat,
    'vgg_a': VGGA,
    'googlenet': GoogLeNet,
    'resnet50': ResNet50,
}

_INSIZE = {'alexnet': 224, 'overfeat': 231, 'vgg_a': 224, 'googlenet': 224,
           'resnet50': 224}


def build(name, insize=None):
    """Build the PyTorch twin of the cpuframe model ``name``."""
    if name not in MODELS:
        raise ValueError('torch_models.build: expected one of {}, got {!r}'.format(
            ', '.join(MODELS), name))
    return MODELS[name](_INSIZE[name] if insize is None else insize)


_PARAM_NAMES = {'W': 'weight', 'b': 'bias', 'gamma': 'weight', 'beta': 'bias'}


def torch_param_name(cpuframe_name):
    """``/res2/0/conv1/W`` -> ``res2.0.conv1.weight``."""
    parts = cpuframe_name.strip('/').split('/')
    parts[-1] = _PARAM_NAMES.get(parts[-1], parts[-1])
    return '.'.join(parts)


def copy_params_from_cpuframe(torch_model, cpuframe_model):
    """Copy every parameter of ``cpuframe_model`` into its torch twin by name.

    Raises ``KeyError`` naming a parameter that has no twin, and
    ``ValueError`` on a shape mismatch; every torch parameter must be set.
    """
    import numpy
    params = dict(torch_model.named_parameters())
    seen = set()
    with torch.no_grad():
        for name, param in cpuframe_model.namedparams():
            tname = torch_param_name(name)
            if tname not in params:
                raise KeyError('copy_params_from_cpuframe: {} ({}) has no twin '
                               'in the torch model'.format(name, tname))
            value = torch.from_numpy(numpy.asarray(param.array))
            if tuple(value.shape) != tuple(params[tname].shape):
                raise ValueError(
                    'copy_params_from_cpuframe: {} has shape {}, {} has {}'.format(
                        name, tuple(value.shape), tname,
                        tuple(params[tname].shape)))
            params[tname].copy_(value)
            seen.add(tname)
    missing = sorted(set(params) - seen)
    if missing:
        raise KeyError('copy_params_from_cpuframe: torch parameters not set: '
                       '{}'.format(', '.join(missing)))


def count_flops(model, x):
    """Forward FLOPs (2 x MACs of Conv2d and Linear layers) of ``model(x)``.

    Runs in inference mode, so batch normalization's running statistics are
    left as they were; the model's mode is restored afterwards.
    """
    total = [0]

    def hook(module, inputs, output):
        total[0] += 2 * output.numel() * module.weight[0].numel()

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, (nn.Conv2d, nn.Linear))]
    training = model.training
    model.eval()
    try:
        with torch.no_grad():
            model(x)
    finally:
        model.train(training)
        for h in handles:
            h.remove()
    return total[0]
