"""PyTorch twins of the models in ``models.py`` (same sizes, same data).

``ptb_lstm`` and ``nstep_bilstm`` use ``nn.LSTM`` (the latter on packed
sequences, ``pack_sequence``); ``ptb_lstm_cell`` steps two ``nn.LSTMCell``
as Chainer's ptb example steps its ``L.LSTM`` links.
"""


def build(model, models, data):
    """(module, loss_fn(module, tensors), tensors) for ``model``."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    if model in ('ptb_lstm', 'ptb_lstm_cell'):
        p = models.PTB
        stepwise = model == 'ptb_lstm_cell'

        class PTBLM(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(p['vocab'], p['units'])
                if stepwise:
                    self.l1 = nn.LSTMCell(p['units'], p['units'])
                    self.l2 = nn.LSTMCell(p['units'], p['units'])
                else:
                    self.rnn = nn.LSTM(p['units'], p['units'], 2,
                                       dropout=p['dropout'])
                self.out = nn.Linear(p['units'], p['vocab'])
                self.drop = nn.Dropout(p['dropout'])

        def loss_fn(m, x, t):
            seq, batch = x.shape
            if stepwise:
                zeros = torch.zeros(batch, p['units'])
                s1 = (zeros, zeros)
                s2 = (zeros, zeros)
                loss = 0
                for i in range(seq):
                    s1 = m.l1(m.drop(m.embed(x[i])), s1)
                    s2 = m.l2(m.drop(s1[0]), s2)
                    loss = loss + F.cross_entropy(m.out(m.drop(s2[0])), t[i])
                return loss / seq
            h, _ = m.rnn(m.drop(m.embed(x)))
            y = m.out(m.drop(h))
            return F.cross_entropy(y.reshape(-1, p['vocab']), t.reshape(-1))

        tensors = (torch.from_numpy(data['x']).long(),
                   torch.from_numpy(data['t']).long())
        return PTBLM(), loss_fn, tensors

    if model == 'nstep_bilstm':
        p = models.NSTEP
        lstm = nn.LSTM(p['in_size'], p['units'], p['layers'],
                       bidirectional=True)
        xs = sorted((torch.from_numpy(x) for x in data['xs']),
                    key=len, reverse=True)

        def loss_fn(m, *seqs):
            packed = nn.utils.rnn.pack_sequence(list(seqs))
            out, _ = m(packed)
            return out.data.sum()

        return lstm, loss_fn, tuple(xs)
    raise ValueError('unknown model {!r}'.format(model))
