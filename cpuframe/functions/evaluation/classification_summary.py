"""Per-class precision, recall, F-beta score and support."""
import numpy

from cpuframe import backend
from cpuframe.function_node import FunctionNode
from cpuframe.utils import type_check

_NAME = 'classification_summary'


class ClassificationSummary(FunctionNode):
    """Precision, recall, F-beta and support of ``argmax(y, 1)`` vs ``t``."""

    def __init__(self, label_num, beta, ignore_label):
        self.label_num = label_num
        self.beta = beta
        self.ignore_label = ignore_label

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('y', 't'))
        y_type, t_type = in_types
        type_check.expect(y_type.dtype.kind == 'f',
                          t_type.dtype.kind == 'i')
        t_ndim = type_check.eval(t_type.ndim)
        type_check.expect(y_type.ndim >= t_type.ndim,
                          t_type.ndim >= 1,
                          y_type.ndim >= 2,
                          y_type.shape[0] == t_type.shape[0],
                          y_type.shape[2:t_ndim + 1] == t_type.shape[1:])
        for i in range(t_ndim + 1, type_check.eval(y_type.ndim)):
            type_check.expect(y_type.shape[i] == 1)

    def forward(self, inputs):
        y, t = inputs
        xp = backend.get_array_module(y)
        t = t.ravel().astype(numpy.intp)
        ignored = t == self.ignore_label
        if self.label_num is None:
            label_num = int(t.max()) + 1 if t.size else 0
        else:
            label_num = int(self.label_num)
        bad = ~ignored & ((t < 0) | (t >= label_num))
        if bad.any():
            raise ValueError(
                '{}: each label t must satisfy 0 <= t < label_num (= {}) or '
                't == ignore_label (= {}), got t = {}'.format(
                    _NAME, label_num, self.ignore_label, t[bad][0].item()))
        # Ignored positions go to an extra bin, label_num, dropped at the end;
        # so do predictions of classes >= label_num.
        pred = xp.where(ignored, label_num,
                        xp.minimum(y.argmax(axis=1).ravel(), label_num))
        true = xp.where(ignored, label_num, t)
        n_bins = label_num + 1
        support = xp.bincount(true, minlength=n_bins)[:label_num]
        relevant = xp.bincount(pred, minlength=n_bins)[:label_num]
        tp = xp.bincount(xp.where(pred == true, true, label_num),
                         minlength=n_bins)[:label_num]
        with numpy.errstate(divide='ignore', invalid='ignore'):
            precision = tp / relevant
            recall = tp / support
            beta2 = self.beta * self.beta
            fbeta = ((1 + beta2) * precision * recall /
                     (beta2 * precision + recall))
        return precision, recall, fbeta.astype(precision.dtype), support

    def backward(self, indexes, grad_outputs):
        return tuple(None for _ in indexes)


def classification_summary(y, t, label_num=None, beta=1.0, ignore_label=-1):
    """Per-class precision, recall, F-beta score and support.

    With predictions ``argmax(y, axis=1)``, for each class ``c``:
    precision ``tp / (tp + fp)``, recall ``tp / (tp + fn)``, F-beta
    ``(1 + beta^2) P R / (beta^2 P + R)`` and support (the number of labels
    equal to ``c``).  A class never predicted (or never present) gets
    ``nan`` precision (or recall), as in Chainer.

    Args:
        y: float scores of shape ``(N, C)`` or ``(N, C, d1, ...)``.
        t: signed integer labels of shape ``(N,)`` or ``(N, d1, ...)``.
        label_num (int): the number of classes; ``max(t) + 1`` if None.
            Labels must lie in ``[0, label_num)`` unless ignored.
        beta (float): the weight of recall in the F-beta score.
        ignore_label (int): positions with this label are left out.

    Returns:
        tuple of four Variables of shape ``(label_num,)``: precision,
        recall and F-beta (float64, as Chainer computes them) and support
        (integers).  None of them is differentiable.

    >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]], np.float32)
    >>> p, r, f, s = F.classification_summary(y, np.array([0, 1, 1], np.int32))
    >>> p.array, r.array, s.array
    (array([0.5, 1. ]), array([1. , 0.5]), array([1, 2]))
    """
    return ClassificationSummary(label_num, beta, ignore_label).apply((y, t))


def precision(y, t, label_num=None, ignore_label=-1):
    """Per-class precision and support; see :func:`classification_summary`."""
    ret = classification_summary(y, t, label_num, 1.0, ignore_label)
    return ret[0], ret[3]


def recall(y, t, label_num=None, ignore_label=-1):
    """Per-class recall and support; see :func:`classification_summary`."""
    ret = classification_summary(y, t, label_num, 1.0, ignore_label)
    return ret[1], ret[3]


def fbeta_score(y, t, label_num=None, beta=1.0, ignore_label=-1):
    """Per-class F-beta score and support; see
    :func:`classification_summary`."""
    ret = classification_summary(y, t, label_num, beta, ignore_label)
    return ret[2], ret[3]


def f1_score(y, t, label_num=None, ignore_label=-1):
    """Per-class F1 score and support; see :func:`classification_summary`."""
    ret = classification_summary(y, t, label_num, 1.0, ignore_label)
    return ret[2], ret[3]
