"""Classifier: a predictor plus a loss and an accuracy, reported each call."""
from cpuframe import link, reporter
from cpuframe.functions.evaluation.accuracy import accuracy
from cpuframe.functions.loss.softmax_cross_entropy import softmax_cross_entropy


class Classifier(link.Chain):
    """Wraps ``predictor``; ``forward(*args)`` returns the loss.

    The last argument (``label_key=-1``; or a keyword name) is the label,
    the rest go to the predictor.  ``loss`` and, with ``compute_accuracy``,
    ``accuracy`` are reported to the current reporter and kept as
    attributes ``y``, ``loss`` and ``accuracy``.
    """

    compute_accuracy = True

    def __init__(self, predictor, lossfun=softmax_cross_entropy,
                 accfun=accuracy, label_key=-1):
        if not isinstance(label_key, (int, str)):
            raise TypeError('Classifier: expected label_key as an int or a '
                            'str, got {}'.format(type(label_key).__name__))
        super().__init__()
        self.lossfun = lossfun
        self.accfun = accfun
        self.y = None
        self.loss = None
        self.accuracy = None
        self.label_key = label_key
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args, **kwargs):
        if isinstance(self.label_key, int):
            if not -len(args) <= self.label_key < len(args):
                raise ValueError(
                    'Classifier: label_key {} is out of range for {} '
                    'positional arguments'.format(self.label_key, len(args)))
            t = args[self.label_key]
            index = self.label_key % len(args)
            args = args[:index] + args[index + 1:]
        else:
            if self.label_key not in kwargs:
                raise ValueError('Classifier: label_key {!r} is not among the '
                                 'keyword arguments'.format(self.label_key))
            t = kwargs.pop(self.label_key)
        self.y = None
        self.loss = None
        self.accuracy = None
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, t)
        reporter.report({'loss': self.loss}, self)
        if self.compute_accuracy:
            self.accuracy = self.accfun(self.y, t)
            reporter.report({'accuracy': self.accuracy}, self)
        return self.loss
