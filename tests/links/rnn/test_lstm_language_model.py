"""End to end: a tiny LSTM language model learns a sequence that needs memory.

The sequence walks 0, 1, ..., 7 and back down to 1, then repeats.  After a
token in 1..6 the next one depends on the direction of the walk, which only
the recurrent state can tell: a model without memory cannot go below
12/14 * log(2) = 0.59 nats.  The LSTM, trained with truncated BPTT and
momentum SGD written here, must get close to zero.
"""
import numpy

import cpuframe
import cpuframe.functions as F
from cpuframe.link import Chain
from cpuframe.links.connection.embed_id import EmbedID
from cpuframe.links.connection.linear import Linear
from cpuframe.links.rnn.lstm import LSTM

VOCAB = 8
PATTERN = list(range(VOCAB)) + list(range(VOCAB - 2, 0, -1))  # period 14
BPTT = 10


class LanguageModel(Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.embed = EmbedID(VOCAB, 16)
            self.rnn = LSTM(16, 32)
            self.out = Linear(32, VOCAB)

    def reset_state(self):
        self.rnn.reset_state()

    def forward(self, tokens):
        return self.out(self.rnn(self.embed(tokens)))


def _streams(n_steps):
    """One stream per phase of the pattern: (n_steps + 1, 14) token ids."""
    period = len(PATTERN)
    pos = numpy.arange(n_steps + 1)[:, None] + numpy.arange(period)[None]
    return numpy.asarray(PATTERN, numpy.int32)[pos % period]


def _loss(model, tokens, start, length):
    total = 0
    for t in range(start, start + length):
        total += F.softmax_cross_entropy(model(tokens[t]), tokens[t + 1])
    return total / length


def _momentum_sgd(model, velocity, lr=0.3, momentum=0.9, max_norm=5.0):
    grads = [p.grad for p in model.params()]
    norm = numpy.sqrt(sum(float((g * g).sum()) for g in grads))
    scale = min(1.0, max_norm / (norm + 1e-12))
    for p, g in zip(model.params(), grads):
        v = velocity.setdefault(id(p), numpy.zeros_like(p.array))
        v *= momentum
        v -= lr * scale * g
        p.array += v


def test_lstm_language_model_learns_a_sequence_with_memory():
    numpy.random.seed(0)
    model = LanguageModel()
    n_iters = 80
    tokens = _streams(n_iters * BPTT)
    velocity = {}

    model.reset_state()
    with cpuframe.no_backprop_mode():
        initial = float(_loss(model, tokens, 0, len(PATTERN)).array)
    assert initial > 1.8  # about log(8) = 2.08 at the start

    model.reset_state()
    for it in range(n_iters):
        loss = _loss(model, tokens, it * BPTT, BPTT)
        model.cleargrads()
        loss.backward()
        loss.unchain_backward()
        _momentum_sgd(model, velocity)

    # continue the streams without updates: the state carries over
    start = n_iters * BPTT - 2 * len(PATTERN)
    model.reset_state()
    with cpuframe.no_backprop_mode():
        _loss(model, tokens, start, len(PATTERN))  # warm up the state
        final = float(_loss(model, tokens, start + len(PATTERN),
                            len(PATTERN)).array)
    assert final < 0.05, (initial, final)
