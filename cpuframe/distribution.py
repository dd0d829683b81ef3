"""Chainer's ``chainer.distribution``: the :class:`Distribution` base class
and the Kullback-Leibler registry (:func:`register_kl`,
:func:`kl_divergence`, :func:`cross_entropy`)."""


def _taking_points(method):
    import functools

    from cpuframe import backend
    from cpuframe.variable import Variable

    @functools.wraps(method)
    def wrapper(self, x, *args, **kwargs):
        if backend.is_array(x):
            x = Variable(x, requires_grad=False)
        return method(self, x, *args, **kwargs)
    wrapper._takes_points = True
    return wrapper


class Distribution:
    """Base class of the probability distributions of
    :mod:`cpuframe.distributions`.

    A distribution holds a batch of independent distributions of the same
    family: its parameters are Variables of shape
    ``batch_shape (+ event shape)``.  ``log_prob(x)`` and friends take
    points of shape ``... + batch_shape + event_shape`` and return
    Variables of shape ``... + batch_shape``, differentiable with respect to
    the parameters; ``sample(sample_shape)`` returns points of shape
    ``sample_shape + batch_shape + event_shape``, reparameterised
    (differentiable) where the family allows it.

    Methods and properties a family does not define raise
    ``NotImplementedError``.
    """

    # The methods that take points: an array point becomes a constant
    # Variable first (as Chainer's ``as_variable(x)``), so that arithmetic
    # on it before any Variable (``1 - x`` of a 0-d array is a NumPy
    # scalar) stays in the graph's types.
    _POINT_METHODS = ('log_prob', 'prob', 'cdf', 'log_cdf', 'icdf',
                      'survival_function', 'log_survival_function')

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in cls._POINT_METHODS:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, '_takes_points',
                                                  False):
                setattr(cls, name, _taking_points(method))

    def _not_implemented(self, what):
        return NotImplementedError('{} does not provide {}'.format(
            type(self).__name__, what))

    @property
    def batch_shape(self):
        """Shape of the batch of distributions."""
        raise self._not_implemented('batch_shape')

    @property
    def event_shape(self):
        """Shape of one sample point of one distribution."""
        raise self._not_implemented('event_shape')

    @property
    def covariance(self):
        raise self._not_implemented('covariance')

    @property
    def entropy(self):
        raise self._not_implemented('entropy')

    @property
    def mean(self):
        raise self._not_implemented('mean')

    @property
    def mode(self):
        raise self._not_implemented('mode')

    @property
    def params(self):
        """The parameters as a dict of Variables."""
        raise self._not_implemented('params')

    @property
    def stddev(self):
        raise self._not_implemented('stddev')

    @property
    def support(self):
        """The support, as a string (``'real'``, ``'positive'``, ...)."""
        raise self._not_implemented('support')

    @property
    def variance(self):
        raise self._not_implemented('variance')

    @property
    def xp(self):
        """The array module of the parameters."""
        params = list(self.params.values())
        return params[0].xp if params else __import__('numpy')

    def cdf(self, x):
        raise self._not_implemented('cdf')

    def icdf(self, x):
        raise self._not_implemented('icdf')

    def log_cdf(self, x):
        raise self._not_implemented('log_cdf')

    def log_prob(self, x):
        raise self._not_implemented('log_prob')

    def log_survival_function(self, x):
        raise self._not_implemented('log_survival_function')

    def perplexity(self, x):
        raise self._not_implemented('perplexity')

    def prob(self, x):
        """``exp(log_prob(x))`` unless the family defines it directly."""
        from cpuframe.functions.math.exponential import exp
        return exp(self.log_prob(x))

    def survival_function(self, x):
        raise self._not_implemented('survival_function')

    def sample(self, sample_shape=()):
        """Samples of shape ``sample_shape + batch_shape + event_shape``.

        Args:
            sample_shape (int or tuple of ints): leading shape.
        """
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        sample_shape = tuple(sample_shape)
        if any(not isinstance(s, int) or s < 0 for s in sample_shape):
            raise ValueError(
                '{}.sample: sample_shape must be non-negative ints, got '
                '{}'.format(type(self).__name__, sample_shape))
        n = 1
        for s in sample_shape:
            n *= s
        samples = self.sample_n(n)
        return samples.reshape(
            sample_shape + tuple(self.batch_shape) + tuple(self.event_shape))

    def sample_n(self, n):
        """``n`` samples, of shape ``(n,) + batch_shape + event_shape``."""
        raise self._not_implemented('sample_n')


_KLDIVERGENCE = {}


def register_kl(Dist1, Dist2):
    """Decorator registering ``kl(dist1, dist2)`` as the KL divergence of a
    ``Dist1`` from a ``Dist2``, used by :func:`kl_divergence`.

    >>> @cpuframe.register_kl(MyDist, MyDist)  # doctest: +SKIP
    ... def _kl_mydist_mydist(dist1, dist2):
    ...     return ...
    """
    for d in (Dist1, Dist2):
        if not (isinstance(d, type) and issubclass(d, Distribution)):
            raise TypeError('register_kl expects Distribution subclasses, '
                            'got {!r}'.format(d))

    def f(kl):
        _KLDIVERGENCE[Dist1, Dist2] = kl
        return kl
    return f


def kl_divergence(dist1, dist2):
    """``KL(dist1 || dist2)``, batchwise, by the function registered for
    ``(type(dist1), type(dist2))`` with :func:`register_kl`.

    Raises:
        NotImplementedError: no function is registered for the pair.
    """
    try:
        kl = _KLDIVERGENCE[type(dist1), type(dist2)]
    except KeyError:
        raise NotImplementedError(
            'kl_divergence: no KL divergence is registered for ({}, {}); '
            'register one with register_kl'.format(
                type(dist1).__name__, type(dist2).__name__)) from None
    return kl(dist1, dist2)


def cross_entropy(dist1, dist2):
    """Cross entropy ``H(dist1, dist2) = H(dist1) + KL(dist1 || dist2)``.

    (Chainer 7 calls ``dist1.entropy()``, which fails because ``entropy`` is
    a property; this uses the property.)
    """
    return dist1.entropy + kl_divergence(dist1, dist2)
