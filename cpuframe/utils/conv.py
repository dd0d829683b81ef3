"""Output-size arithmetic shared by convolution, deconvolution and pooling."""


def get_conv_outsize(size, k, s, p, cover_all=False, d=1):
    """Output length of a convolution or pooling along one axis.

    ``size`` input length, ``k`` kernel, ``s`` stride, ``p`` padding on each
    side, ``d`` dilation.  With ``cover_all`` the last window may run past
    the padded input so that every input element is covered (Chainer's
    rule: the extra ``s - 1`` is padding on the far side).
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size, k, s, p, cover_all=False, d=1):
    """Output length of a deconvolution (transposed convolution) along one axis."""
    dk = (k - 1) * d + 1
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


def as_tuple(x, n, name='argument'):
    """``x`` as an ``n``-tuple of ints (an int is repeated ``n`` times)."""
    if hasattr(x, '__getitem__'):
        x = tuple(int(v) for v in x)
        if len(x) != n:
            raise ValueError('{}: expected {} values, got {}'.format(
                name, n, len(x)))
        return x
    return (int(x),) * n


def pair(x, name='argument'):
    """``x`` as a pair of ints."""
    return as_tuple(x, 2, name)
