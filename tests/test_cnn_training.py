"""End to end: a small CNN learns to tell bars apart on the NumPy path."""
import numpy

import cpuframe
import cpuframe.functions as F
import cpuframe.links as L


def _bars(n, rng):
    """8x8 images of a horizontal, vertical or diagonal bar plus noise."""
    x = rng.normal(0, 0.3, (n, 1, 8, 8)).astype(numpy.float32)
    t = rng.randint(0, 3, n).astype(numpy.int32)
    pos = rng.randint(1, 7, n)
    for i in range(n):
        if t[i] == 0:
            x[i, 0, pos[i], :] += 1.0
        elif t[i] == 1:
            x[i, 0, :, pos[i]] += 1.0
        else:
            x[i, 0][numpy.eye(8, dtype=bool)] += 1.0
    return x, t


class SmallCNN(cpuframe.link.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 8, 3, pad=1)
            self.bn = L.BatchNormalization(8)
            self.fc = L.Linear(8 * 4 * 4, 3)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        h = F.max_pooling_2d(h, 2)
        return self.fc(h)


def test_small_cnn_reaches_accuracy():
    rng = numpy.random.RandomState(0)
    numpy.random.seed(0)
    x_train, t_train = _bars(300, rng)
    x_test, t_test = _bars(150, rng)
    model = SmallCNN()
    lr = 0.1
    for _ in range(6):
        order = rng.permutation(len(x_train))
        for i in range(0, len(order), 30):
            idx = order[i:i + 30]
            model.cleargrads()
            loss = F.softmax_cross_entropy(model(x_train[idx]), t_train[idx])
            loss.backward()
            for p in model.params():
                p.array -= lr * p.grad
    with cpuframe.using_config('train', False), cpuframe.no_backprop_mode():
        acc = float(F.accuracy(model(x_test), t_test).array)
    assert acc >= 0.95, acc
