"""Coefficient of determination (not differentiable)."""
from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check


class R2Score(FunctionNode):
    """``1 - SS_res / SS_tot`` per output column (over axis 0)."""

    def __init__(self, sample_weight, multioutput):
        if sample_weight is not None:
            raise NotImplementedError('r2_score: sample_weight must be None, '
                                      'weights are not supported')
        if multioutput not in ('uniform_average', 'raw_values'):
            raise ValueError("r2_score: multioutput must be "
                             "'uniform_average' or 'raw_values', got "
                             "{!r}".format(multioutput))
        self.multioutput = multioutput

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('pred', 'true'))
        pred_type, true_type = in_types
        type_check.expect(pred_type.dtype.kind == 'f',
                          true_type.dtype.kind == 'f',
                          pred_type.shape == true_type.shape)

    def forward(self, inputs):
        pred, true = inputs
        xp = backend.get_array_module(pred)
        ss_res = xp.asarray(((pred - true) ** 2).sum(axis=0))
        ss_tot = xp.asarray(((true - true.mean(axis=0)) ** 2).sum(axis=0))
        zero = ss_tot == 0
        # a constant target scores 0, as in Chainer
        score = xp.where(zero, 0.0, 1 - ss_res / xp.where(zero, 1, ss_tot))
        score = score.astype(pred.dtype, copy=False)
        if self.multioutput == 'uniform_average':
            score = xp.asarray(score.mean(), dtype=pred.dtype)
        return utils.force_array(score, pred.dtype),

    def backward(self, indexes, grad_outputs):
        return tuple(None for _ in indexes)


def r2_score(pred, true, sample_weight=None, multioutput='uniform_average'):
    """R^2, the coefficient of determination, per output (over axis 0).

    ``R^2 = 1 - sum((pred - true) ** 2) / sum((true - mean(true)) ** 2)``,
    taken as 0 for an output whose ``true`` is constant.

    Args:
        pred: float predictions.
        true: float targets of ``pred``'s shape.
        sample_weight: must be None (kept for scikit-learn compatibility).
        multioutput (str): ``'uniform_average'`` (the mean over outputs, a
            scalar) or ``'raw_values'`` (one score per output).

    Returns:
        Variable; not differentiable (no gradient flows to the inputs).

    >>> F.r2_score(np.array([1., 2., 4.]), np.array([1., 2., 3.])).array
    array(0.5)
    """
    return R2Score(sample_weight, multioutput).apply((pred, true))[0]
