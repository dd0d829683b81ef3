"""SpectralNormalization: divide a link's weight by its largest singular value.

Miyato et al., "Spectral Normalization for Generative Adversarial
Networks" (ICLR 2018).
"""
import numpy

from cpuframe import backend, link_hook
from cpuframe import functions as F
from cpuframe.backends import intel64
from cpuframe.configuration import config
from cpuframe.variable import Parameter


def _l2normalize(xp, v, eps):
    return v / (xp.sqrt(xp.sum(v * v)) + eps)


def _power_iteration(weight_matrix, u, n_power_iteration, eps):
    """New estimates ``(u, v)`` of the first left/right singular vectors."""
    xp = backend.get_array_module(weight_matrix)
    v = None
    for _ in range(n_power_iteration):
        v = _l2normalize(xp, weight_matrix.T.dot(u), eps)
        u = _l2normalize(xp, weight_matrix.dot(v), eps)
    return u, v


def l2normalize(xp, v, eps):
    """``v / (||v|| + eps)`` (Chainer's helper of this module)."""
    return _l2normalize(xp, v, eps)


def update_approximate_vectors(weight_matrix, u, n_power_iteration, eps):
    """``n_power_iteration`` power-iteration steps from ``u`` on the 2-d
    Variable ``weight_matrix``: the new estimates ``(u, v)`` (arrays) of its
    first left and right singular vectors."""
    return _power_iteration(weight_matrix.array, u, n_power_iteration, eps)


def calculate_max_singular_value(weight_matrix, u, v):
    """``u^T W v``, the largest singular value of ``W`` estimated from the
    singular vectors ``u`` and ``v`` (a Variable differentiable in
    ``W``)."""
    return F.matmul(F.matmul(u, weight_matrix), v)


class SpectralNormalization(link_hook.LinkHook):
    """Link hook replacing the weight ``W`` by ``W / sigma(W)`` in forward.

    ``sigma(W)``, the largest singular value of ``W`` seen as a matrix, is
    estimated by power iteration with a vector ``u`` kept on the link as a
    persistent value ``<weight_name>_u`` (saved by serializers).  Each
    forward runs ``n_power_iteration`` steps from ``u``; ``u`` is updated
    in place only in train mode (``config.train``), and no gradient flows
    through it.  The weight matrix is ``W`` reshaped to ``(W.shape[0], -1)``;
    for a deconvolution (whose weight is ``(in, out, ...)``) the axis of
    ``u`` is 1 and ``W`` is transposed to put it first.

    During the forward the link's attribute holds the normalized weight (a
    Variable); afterwards the original Parameter is back, and receives the
    gradient through the normalization.

    Args:
        n_power_iteration (int): power iteration steps per forward (>= 1).
        eps (float): added to norms, against division by zero.
        use_gamma (bool): also learn a scale ``gamma`` (a Parameter of the
            link, initialized to the largest singular value of ``W``):
            the weight becomes ``gamma * W / sigma(W)``.
        factor (float): if given, ``sigma`` is divided by it, so that the
            largest singular value of the normalized weight is ``factor``.
        weight_name (str): the attribute of the weight Parameter.
        name (str): the name of the hook (default ``SpectralNormalization``).

    Example::

        layer = L.Convolution2D(3, 16, 3).add_hook(SpectralNormalization())
    """

    name = 'SpectralNormalization'

    def __init__(self, n_power_iteration=1, eps=1e-6, use_gamma=False,
                 factor=None, weight_name='W', name=None):
        if n_power_iteration < 1:
            raise ValueError(
                'SpectralNormalization: n_power_iteration must be at least 1, '
                'got {}'.format(n_power_iteration))
        self.n_power_iteration = n_power_iteration
        self.eps = eps
        self.use_gamma = use_gamma
        self.factor = factor
        self.weight_name = weight_name
        self.vector_name = weight_name + '_u'
        self.axis = 0
        self.v = None
        self.original_weight = None
        self._initialized = False
        if name is not None:
            self.name = name

    def __enter__(self):
        raise ValueError(
            'SpectralNormalization: it normalizes one link\'s weight; add it '
            'with link.add_hook(hook), not as a global hook (with hook:)')

    def added(self, link):
        if link is None:
            raise ValueError(
                'SpectralNormalization: expected a link to add the hook to, '
                'got None')
        weight = getattr(link, self.weight_name, None)
        if not isinstance(weight, Parameter):
            raise ValueError(
                'SpectralNormalization: the link {} has no weight Parameter '
                '{!r}'.format(type(link).__name__, self.weight_name))
        if getattr(type(link), '_transposed', False):
            self.axis = 1
        if weight.array is not None:
            self._prepare_parameters(link)

    def deleted(self, link):
        if link is None or not self._initialized:
            return
        delattr(link, self.vector_name)
        if self.use_gamma:
            delattr(link, 'gamma')
        self._initialized = False

    def forward_preprocess(self, cb_args):
        link = cb_args.link
        if self.original_weight is not None:
            # The previous forward raised before forward_postprocess ran.
            object.__setattr__(link, self.weight_name, self.original_weight)
        if not self._initialized:
            x = cb_args.args[0] if cb_args.args else None
            self._prepare_parameters(link, x, cb_args.kwargs)
        # The Parameter is kept here and put back in forward_postprocess, so
        # that users (and optimizers) see link.W as the Parameter it is.
        self.original_weight = getattr(link, self.weight_name)
        object.__setattr__(link, self.weight_name,
                           self.normalize_weight(link))

    def forward_postprocess(self, cb_args):
        object.__setattr__(cb_args.link, self.weight_name,
                           self.original_weight)
        self.original_weight = None

    def _prepare_parameters(self, link, x=None, kwargs=None):
        """Create ``u`` (and ``gamma``), initializing a lazy weight first."""
        weight = getattr(link, self.weight_name)
        if weight.array is None:
            if x is None:
                raise ValueError(
                    'SpectralNormalization: the weight {!r} of {} is not '
                    'initialized and no input tells its shape'.format(
                        self.weight_name, type(link).__name__))
            link._initialize_params(self._in_size(link, x, kwargs or {}))
        shape = weight.shape
        if shape[self.axis] == 0:
            raise ValueError(
                'SpectralNormalization: expected {}.shape[{}] > 0, got shape '
                '{}'.format(self.weight_name, self.axis, shape))
        u = numpy.random.normal(size=(shape[self.axis],)).astype(weight.dtype)
        if self.vector_name in link.__dict__:
            delattr(link, self.vector_name)
        link.add_persistent(self.vector_name, u)
        if self.use_gamma:
            w = self._reshape(intel64.to_numpy(weight.array))
            xp = backend.get_array_module(w)
            s0 = xp.linalg.svd(w, compute_uv=False)[0]
            with link.init_scope():
                link.gamma = Parameter(xp.asarray(s0, dtype=weight.dtype))
        self._initialized = True

    @staticmethod
    def _in_size(link, x, kwargs):
        from cpuframe.links.connection.linear import Linear
        shape = x.shape
        if isinstance(link, Linear):
            n_batch_axes = kwargs.get('n_batch_axes', 1)
            return int(numpy.prod(shape[n_batch_axes:]))
        return shape[1]

    def _reshape(self, w):
        """The weight (array or Variable) as the matrix ``sigma`` is of."""
        if self.axis != 0:
            axes = (self.axis,) + tuple(
                i for i in range(w.ndim) if i != self.axis)
            w = F.transpose(w, axes) if hasattr(w, 'creator_node') \
                else w.transpose(axes)
        if w.ndim == 2:
            return w
        shape = (w.shape[0], -1)
        return F.reshape(w, shape) if hasattr(w, 'creator_node') \
            else w.reshape(shape)

    def normalize_weight(self, link):
        """The normalized weight of ``link`` (a Variable), ``u`` updated.

        ``u`` changes only in train mode and not while recomputing (then
        the ``v`` of the previous call is used).
        """
        W = getattr(link, self.weight_name)
        u = getattr(link, self.vector_name)
        weight_matrix = self._reshape(W)
        u_host = intel64.to_numpy(u)
        if config.in_recomputing and self.v is not None:
            u_new, v = u_host, self.v
        else:
            u_new, v = _power_iteration(intel64.to_numpy(weight_matrix.array), u_host,
                                        self.n_power_iteration, self.eps)
        xp = backend.get_array_module(u_new)
        # sigma = u^T W v with u, v constants: its gradient is u v^T.
        sigma = F.sum(weight_matrix * xp.outer(u_new, v).astype(W.dtype))
        if self.factor is not None:
            sigma = sigma / self.factor
        scale = sigma if not self.use_gamma else sigma / link.gamma
        W = W / F.broadcast_to(scale, W.shape)
        if not config.in_recomputing:
            self.v = v
            if config.train:
                if u_host is u:
                    u[...] = u_new
                else:
                    object.__setattr__(link, self.vector_name,
                                       link.device.send(u_new))
        return W
