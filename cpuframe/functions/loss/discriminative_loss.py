"""The discriminative margin-based clustering loss (De Brabandere et al.,
2017) for instance segmentation by pixel embeddings."""
import numpy

from cpuframe import backend
from cpuframe.variable import as_variable


def _safe_sqrt(sq):
    """``sqrt(sq)`` with a zero gradient where ``sq`` is 0 (a plain sqrt
    would give 0 * inf = NaN there)."""
    from cpuframe.functions.array.where import where
    from cpuframe.functions.math.sqrt import sqrt
    xp = backend.get_array_module(sq.array)
    positive = sq.array > 0
    ones = xp.ones(sq.shape, sq.dtype)
    return sqrt(where(positive, sq, ones)) * positive.astype(sq.dtype)


class DiscriminativeMarginBasedClusteringLoss:
    """The discriminative loss as an object: ``loss(embeddings, labels)``.

    See :func:`discriminative_margin_based_clustering_loss` for the
    arguments and the terms returned; here ``delta_v``, ``delta_d`` and
    ``max_embedding_dim`` have Chainer's defaults (0.5, 1.5 and 10).
    """

    def __init__(self, delta_v=0.5, delta_d=1.5, max_embedding_dim=10,
                 norm=1, alpha=1.0, beta=1.0, gamma=0.001):
        name = 'discriminative_margin_based_clustering_loss'
        if not isinstance(max_embedding_dim, (int, numpy.integer)) or \
                isinstance(max_embedding_dim, bool) or max_embedding_dim <= 0:
            raise ValueError('{}: expected max_embedding_dim as a positive '
                             'int, got {!r}'.format(name, max_embedding_dim))
        if norm not in (1, 2):
            raise ValueError('{}: norm can only be 1 or 2, got '
                             '{!r}'.format(name, norm))
        self.delta_v = delta_v
        self.delta_d = delta_d
        self.max_embedding_dim = int(max_embedding_dim)
        self.norm = norm
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma

    def _norm(self, v, axis):
        from cpuframe.functions.math.basic_math import absolute
        from cpuframe.functions.math.sum import sum as sum_
        if self.norm == 1:
            return sum_(absolute(v), axis=axis)
        return _safe_sqrt(sum_(v * v, axis=axis))

    def __call__(self, embeddings, labels):
        from cpuframe.functions.activation.relu import relu
        from cpuframe.functions.array.broadcast import broadcast_to
        from cpuframe.functions.array.get_item import get_item
        from cpuframe.functions.array.reshape import reshape
        from cpuframe.functions.math.basic_math import absolute, matmul
        from cpuframe.functions.math.sum import sum as sum_

        name = 'discriminative_margin_based_clustering_loss'
        x = as_variable(embeddings)
        labels = getattr(labels, 'array', labels)
        K = self.max_embedding_dim
        if x.ndim != 4 or x.dtype.kind != 'f' or x.shape[1] != K:
            raise ValueError(
                '{}: expected float embeddings of shape (batch, '
                'max_embedding_dim={}, height, width), got {} {}'.format(
                    name, K, tuple(x.shape), x.dtype))
        B, D, H, W = x.shape
        if tuple(labels.shape) != (B, H, W) or labels.dtype.kind not in 'iu':
            raise ValueError(
                '{}: expected integer labels of shape {}, got {} {}'.format(
                    name, (B, H, W), tuple(labels.shape), labels.dtype))
        xp = backend.get_array_module(x.array)
        dtype = x.dtype
        P = H * W

        # masks[b, c, p]: pixel p of image b belongs to instance c + 1
        lab = xp.asarray(labels).reshape(B, 1, P)
        masks = (lab == xp.arange(1, K + 1).reshape(1, K, 1)).astype(dtype)
        counts = masks.sum(axis=2)                                # (B, K)
        flat = reshape(x, (B, D, P))
        # the instances' mean embeddings mu[b, c, :]
        mu = matmul(masks, flat, transb=True) / \
            xp.maximum(counts, 1)[:, :, None]                     # (B, K, D)

        # pull: pixels farther than delta_v from their instance's mean
        diff = broadcast_to(reshape(mu, (B, K, D, 1)), (B, K, D, P)) - \
            broadcast_to(reshape(flat, (B, 1, D, P)), (B, K, D, P))
        pull = relu(self._norm(diff, 2) - self.delta_v)           # (B, K, P)
        pull = sum_(pull * pull * masks, axis=(0, 2))             # (K,)
        l_var = sum_(pull / xp.maximum(counts.sum(axis=0), 1)) / K

        # push: pairs of instance means closer than 2 delta_d (every pair
        # of the K instances, present or not, as in Chainer)
        ia, ib = numpy.triu_indices(K, 1)
        if len(ia):
            pair = get_item(mu, (slice(None), ia)) - \
                get_item(mu, (slice(None), ib))                   # (B, n, D)
            push = relu(2 * self.delta_d - self._norm(pair, 2))
            l_dist = sum_(push * push) / (len(ia) * B)
        else:
            l_dist = as_variable(xp.zeros((), dtype))

        # regularization: the size of the means, per instance over the batch
        if self.norm == 1:
            l_reg = sum_(absolute(mu))
        else:
            l_reg = sum_(_safe_sqrt(sum_(mu * mu, axis=(0, 2))))
        l_reg = l_reg / (K * B)
        return self.alpha * l_var, self.beta * l_dist, self.gamma * l_reg


def discriminative_margin_based_clustering_loss(
        embeddings, labels, delta_v, delta_d, max_embedding_dim, norm=1,
        alpha=1.0, beta=1.0, gamma=0.001):
    """Discriminative margin-based clustering loss (De Brabandere et al.,
    `Semantic Instance Segmentation with a Discriminative Loss Function
    <https://arxiv.org/abs/1708.02551>`_).

    ``embeddings`` ``(B, K, H, W)`` embeds every pixel in ``K``
    dimensions, and ``labels`` ``(B, H, W)`` marks the pixels of instance
    ``c`` with ``c`` for ``c = 1 .. K`` (0 and other values: no instance;
    as in Chainer ``K = max_embedding_dim`` is both the embedding size and
    the number of instances).  With ``mu_{b,c}`` the mean embedding of
    instance ``c`` in image ``b`` (zeros if absent), ``N_c`` its pixel
    count over the batch and ``||.||`` the L1 or L2 norm:

    .. math::
        L_{var} &= \\frac{1}{K} \\sum_c \\frac{1}{\\max(N_c, 1)}
            \\sum_b \\sum_{p \\in c}
            [\\|\\mu_{b,c} - x_{b,p}\\| - \\delta_v]_+^2, \\\\
        L_{dist} &= \\frac{1}{B \\binom{K}{2}} \\sum_b \\sum_{c < c'}
            [2 \\delta_d - \\|\\mu_{b,c} - \\mu_{b,c'}\\|]_+^2, \\\\
        L_{reg} &= \\frac{1}{K B} \\sum_c \\|\\mu_{\\cdot,c}\\|,

    where :math:`L_{dist}` runs over all pairs of the ``K`` instances,
    present or not, and the norm in :math:`L_{reg}` is taken over the
    means of instance ``c`` in all images together, both as in Chainer.

    Args:
        embeddings: ``(B, max_embedding_dim, H, W)`` float Variable or array.
        labels: ``(B, H, W)`` int array.
        delta_v (float): the pull margin.
        delta_d (float): the push margin (means are pushed to ``2 delta_d``
            apart).
        max_embedding_dim (int): ``K``.
        norm (int): 1 or 2.
        alpha, beta, gamma (float): the weights of the three terms.

    Returns:
        tuple: ``(alpha * L_var, beta * L_dist, gamma * L_reg)``, scalar
        Variables of ``embeddings``' dtype.

    Unlike Chainer's, any batch size works (Chainer's broadcasting needs
    ``B == 1`` or ``B == K``; for those the values are the same), ``K = 1``
    gives a zero Variable as ``L_dist``, and the L2 norm of a zero vector
    has a zero gradient instead of NaN.

    >>> emb = np.zeros((1, 2, 2, 2), np.float32)
    >>> labels = np.array([[[1, 1], [2, 2]]], np.int32)
    >>> l_var, l_dist, l_reg = F.discriminative_margin_based_clustering_loss(
    ...     emb, labels, 0.5, 1.5, 2)
    >>> float(l_var.array), float(l_dist.array), float(l_reg.array)
    (0.0, 9.0, 0.0)
    """
    return DiscriminativeMarginBasedClusteringLoss(
        delta_v, delta_d, max_embedding_dim, norm, alpha, beta,
        gamma)(embeddings, labels)
