"""``chainer.testing.distribution_unittest``: not available.

cpuframe has no ``chainer.distributions``, so there is nothing for this
harness to test; calling it raises ``NotImplementedError``.
"""


def distribution_unittest(*args, **kwargs):
    """Raises ``NotImplementedError``: cpuframe has no distributions."""
    raise NotImplementedError(
        'cpuframe.testing.distribution_unittest: cpuframe does not implement '
        'chainer.distributions, so there are no distributions to test')
