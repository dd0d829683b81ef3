"""The benchmark's recurrent models in cpuframe, and their synthetic data.

- ``ptb_lstm``: a PTB-style word language model (Chainer's ptb example, the
  "medium" size): EmbedID(10000, 650), a 2-layer LSTM of 650 units over 35
  steps of a batch of 20 as one ``NStepLSTM`` call, Linear(650, 10000),
  dropout 0.5 on the LSTM's input, between its layers and on its output,
  softmax cross entropy over all 700 tokens.
- ``ptb_lstm_cell``: the same model written as Chainer's ptb example does,
  step by step with two stateful ``L.LSTM`` links (F.lstm per step).
- ``nstep_bilstm``: an ``NStepBiLSTM`` encoder (2 layers, 512 units per
  direction, input 512) over 64 sequences of lengths 5 to 50; the loss is
  the sum of all outputs.

Data are synthetic and fixed by a seed, identical for every path (the
PyTorch twins in ``torch_models.py`` use the same arrays).
"""
import numpy

PTB = dict(vocab=10000, units=650, seq=35, batch=20, dropout=0.5)
NSTEP = dict(batch=64, min_len=5, max_len=50, in_size=512, units=512,
             layers=2)
MODELS = ('ptb_lstm', 'nstep_bilstm', 'ptb_lstm_cell')


def make_data(model):
    """The model's inputs as NumPy arrays (the same for every path)."""
    rng = numpy.random.RandomState(0)
    if model in ('ptb_lstm', 'ptb_lstm_cell'):
        tokens = rng.randint(0, PTB['vocab'], size=(PTB['seq'] + 1,
                                                    PTB['batch']))
        tokens = tokens.astype(numpy.int32)
        return {'x': tokens[:-1], 't': tokens[1:]}  # time-major (35, 20)
    if model == 'nstep_bilstm':
        lengths = rng.randint(NSTEP['min_len'], NSTEP['max_len'] + 1,
                              size=NSTEP['batch'])
        xs = [rng.standard_normal((n, NSTEP['in_size'])).astype(numpy.float32)
              for n in lengths]
        return {'xs': xs}
    raise ValueError('unknown model {!r}; expected one of {}'.format(
        model, MODELS))


def tokens_processed(model, data):
    """Tokens (time steps of all sequences) in one iteration."""
    if model == 'nstep_bilstm':
        return int(sum(len(x) for x in data['xs']))
    return int(data['x'].size)


def build(model):
    """The cpuframe model: a Chain with ``loss(data)``."""
    import cpuframe
    from cpuframe import functions as F
    from cpuframe import links as L

    class PTBLM(cpuframe.Chain):
        def __init__(self, stepwise):
            super().__init__()
            self.stepwise = stepwise
            p = PTB
            with self.init_scope():
                self.embed = L.EmbedID(p['vocab'], p['units'])
                if stepwise:
                    self.l1 = L.LSTM(p['units'], p['units'])
                    self.l2 = L.LSTM(p['units'], p['units'])
                else:
                    self.rnn = L.NStepLSTM(2, p['units'], p['units'],
                                           p['dropout'])
                self.out = L.Linear(p['units'], p['vocab'])

        def loss(self, data):
            ratio = PTB['dropout']
            x, t = data['x'], data['t']
            seq, batch = x.shape
            if self.stepwise:
                # Chainer's ptb example: one step at a time, summed losses
                self.l1.reset_state()
                self.l2.reset_state()
                loss = 0
                for i in range(seq):
                    h = self.embed(x[i])
                    h = self.l1(F.dropout(h, ratio))
                    h = self.l2(F.dropout(h, ratio))
                    y = self.out(F.dropout(h, ratio))
                    loss += F.softmax_cross_entropy(y, t[i])
                return loss / seq
            # the whole window in one NStepLSTM call (batch-major sequences)
            h = F.dropout(self.embed(x.T.reshape(-1)), ratio)
            _, _, ys = self.rnn(None, None, list(F.split_axis(h, batch, 0)))
            y = self.out(F.dropout(F.concat(ys, axis=0), ratio))
            return F.softmax_cross_entropy(y, t.T.reshape(-1))

    class BiEncoder(cpuframe.Chain):
        def __init__(self):
            super().__init__()
            p = NSTEP
            with self.init_scope():
                self.rnn = L.NStepBiLSTM(p['layers'], p['in_size'],
                                         p['units'], 0.0)

        def loss(self, data):
            _, _, ys = self.rnn(None, None, data['xs'])
            return F.sum(F.concat(ys, axis=0))

    if model == 'ptb_lstm':
        return PTBLM(stepwise=False)
    if model == 'ptb_lstm_cell':
        return PTBLM(stepwise=True)
    if model == 'nstep_bilstm':
        return BiEncoder()
    raise ValueError('unknown model {!r}; expected one of {}'.format(
        model, MODELS))
