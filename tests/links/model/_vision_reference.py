"""NumPy reference implementations of the layers and of the VGG, ResNet and
GoogLeNet networks, written from the papers' descriptions, used by the
vision model tests (float64, test mode: dropout off, batch normalization
with the running statistics)."""
import collections

import numpy
from numpy.lib.stride_tricks import sliding_window_view


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def conv(x, W, b=None, stride=1, pad=0):
    sy, sx = _pair(stride)
    ph, pw = _pair(pad)
    x = numpy.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    kh, kw = W.shape[2:]
    oh = (x.shape[2] - kh) // sy + 1
    ow = (x.shape[3] - kw) // sx + 1
    win = sliding_window_view(x, (kh, kw), axis=(2, 3))
    win = win[:, :, :(oh - 1) * sy + 1:sy, :(ow - 1) * sx + 1:sx]
    y = numpy.tensordot(win, W, axes=([1, 4, 5], [1, 2, 3]))
    y = y.transpose(0, 3, 1, 2)
    if b is not None:
        y = y + b[None, :, None, None]
    return y


def max_pool(x, k, s, pad=0, cover_all=True):
    h, w = x.shape[2:]
    if cover_all:  # extra windows reach past the end to cover it
        oh = (h + 2 * pad - k + s - 1) // s + 1
        ow = (w + 2 * pad - k + s - 1) // s + 1
    else:
        oh = (h + 2 * pad - k) // s + 1
        ow = (w + 2 * pad - k) // s + 1
    extra_h = max(0, (oh - 1) * s + k - (h + 2 * pad))
    extra_w = max(0, (ow - 1) * s + k - (w + 2 * pad))
    xp = numpy.pad(x, ((0, 0), (0, 0), (pad, pad + extra_h),
                       (pad, pad + extra_w)), constant_values=-numpy.inf)
    win = sliding_window_view(xp, (k, k), axis=(2, 3))
    win = win[:, :, :(oh - 1) * s + 1:s, :(ow - 1) * s + 1:s]
    return win.max(axis=(4, 5))


def avg_pool(x, k, s, pad=0):
    """Zero padding counted; every window divided by k * k."""
    xp = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = sliding_window_view(xp, (k, k), axis=(2, 3))[:, :, ::s, ::s]
    return win.mean(axis=(4, 5))


def lrn(x, n=5, k=1., alpha=1e-4, beta=.75):
    """y_c = x_c / (k + alpha * sum_{|c' - c| <= n // 2} x_c'^2) ** beta."""
    sq = x ** 2
    total = numpy.zeros_like(x)
    channels = x.shape[1]
    for c in range(channels):
        lo, hi = max(0, c - n // 2), min(channels, c + n // 2 + 1)
        total[:, c] = sq[:, lo:hi].sum(axis=1)
    return x / (k + alpha * total) ** beta


def relu(x):
    return numpy.maximum(x, 0)


def linear(x, W, b=None):
    y = x.reshape(len(x), -1) @ W.T
    return y if b is None else y + b


def softmax(x):
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _a(v):
    return numpy.asarray(v, numpy.float64)


def bn_test(x, bn):
    s = (None, slice(None), None, None)
    return (_a(bn.gamma.array)[s] * (x - _a(bn.avg_mean)[s]) /
            numpy.sqrt(_a(bn.avg_var)[s] + bn.eps) + _a(bn.beta.array)[s])


def conv_link(link, x):
    b = None if link.b is None else _a(link.b.array)
    return conv(x, _a(link.W.array), b, link.stride, link.pad)


def linear_link(link, x):
    return linear(x, _a(link.W.array), _a(link.b.array))


# -- networks ------------------------------------------------------------
def vgg(model, x, n_layers):
    """Outputs of every VGG layer: conv blocks of (2, 2, 3, 3, 3) or
    (2, 2, 4, 4, 4) 3x3 convolutions + relu, each block followed by 2x2
    max pooling; fc6, fc7 (relu), fc8, softmax."""
    counts = (2, 2, 3, 3, 3) if n_layers == 16 else (2, 2, 4, 4, 4)
    out = collections.OrderedDict()
    h = x
    for block, count in enumerate(counts, 1):
        for i in range(1, count + 1):
            name = 'conv{}_{}'.format(block, i)
            h = out[name] = relu(conv_link(getattr(model, name), h))
        h = out['pool{}'.format(block)] = max_pool(h, 2, 2)
    if h.shape[2:] == (7, 7):
        h = out['fc6'] = relu(linear_link(model.fc6, h))
        h = out['fc7'] = relu(linear_link(model.fc7, h))
        h = out['fc8'] = linear_link(model.fc8, h)
        out['prob'] = softmax(h)
    return out


def _bottleneck(b, x):
    h = relu(bn_test(conv_link(b.conv1, x), b.bn1))
    h = relu(bn_test(conv_link(b.conv2, h), b.bn2))
    h = bn_test(conv_link(b.conv3, h), b.bn3)
    shortcut = bn_test(conv_link(b.conv4, x), b.bn4) \
        if hasattr(b, 'conv4') else x
    return relu(h + shortcut)


def resnet(model, x):
    out = collections.OrderedDict()
    h = out['conv1'] = relu(bn_test(conv_link(model.conv1, x), model.bn1))
    h = out['pool1'] = max_pool(h, 3, 2)
    for stage in ('res2', 'res3', 'res4', 'res5'):
        block = getattr(model, stage)
        h = _bottleneck(block.a, h)
        i = 1
        while hasattr(block, 'b{}'.format(i)):
            h = _bottleneck(getattr(block, 'b{}'.format(i)), h)
            i += 1
        out[stage] = h
    h = out['pool5'] = h.mean(axis=(2, 3))
    h = out['fc6'] = linear_link(model.fc6, h)
    out['prob'] = softmax(h)
    return out


def inception(inc, x):
    out1 = conv_link(inc.conv1, x)
    out3 = conv_link(inc.conv3, relu(conv_link(inc.proj3, x)))
    out5 = conv_link(inc.conv5, relu(conv_link(inc.proj5, x)))
    pool = conv_link(inc.projp, max_pool(x, 3, 1, pad=1))
    return relu(numpy.concatenate([out1, out3, out5, pool], axis=1))


def googlenet(model, x):
    def norm(h):
        return lrn(h, n=5, k=1., alpha=1e-4 / 5, beta=.75)

    out = collections.OrderedDict()
    h = out['conv1'] = relu(conv_link(model.conv1, x))
    h = out['pool1'] = norm(max_pool(h, 3, 2))
    h = out['conv2_reduce'] = relu(conv_link(model.conv2_reduce, h))
    h = out['conv2'] = norm(relu(conv_link(model.conv2, h)))
    h = out['pool2'] = max_pool(h, 3, 2)
    h = out['inception_3a'] = inception(model.inc3a, h)
    h = out['inception_3b'] = inception(model.inc3b, h)
    h = out['pool3'] = max_pool(h, 3, 2)
    for name in ('4a', '4b', '4c', '4d', '4e'):
        h = out['inception_' + name] = inception(
            getattr(model, 'inc' + name), h)
    h = out['pool4'] = max_pool(h, 3, 2)
    h = out['inception_5a'] = inception(model.inc5a, h)
    h = out['inception_5b'] = inception(model.inc5b, h)
    if h.shape[2:] == (7, 7):
        h = out['pool5'] = avg_pool(h, 7, 1)
        h = out['loss3_fc'] = linear_link(model.loss3_fc, h)
        out['prob'] = softmax(h)
    for head, source in (('loss1', 'inception_4a'), ('loss2', 'inception_4d')):
        if out[source].shape[2:] != (14, 14):
            continue
        h = avg_pool(out[source], 5, 3)
        h = relu(conv_link(getattr(model, head + '_conv'), h))
        h = relu(linear_link(getattr(model, head + '_fc1'), h))
        out[head + '_fc2'] = linear_link(getattr(model, head + '_fc2'), h)
    return out
