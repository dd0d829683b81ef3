"""F.connectionist_temporal_classification against a brute-force sum over
every alignment, with numerical gradients."""
import itertools

import numpy
import pytest

import cpuframe
import cpuframe.functions as F
from cpuframe import gradient_check, testing
from cpuframe.backends import intel64


def _collapse(path, blank):
    out, prev = [], None
    for k in path:
        if k != prev and k != blank:
            out.append(k)
        prev = k
    return tuple(out)


def _brute_force_loss(x, labels, blank, n_frames):
    """-log sum over every path of n_frames symbols collapsing to labels."""
    y = numpy.exp(x - x.max(axis=1, keepdims=True))
    y = y / y.sum(axis=1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(x.shape[1]), repeat=n_frames):
        if _collapse(path, blank) == tuple(labels):
            total += numpy.prod([y[i, k] for i, k in enumerate(path)])
    return -numpy.log(total)


def _data(T, B, V, M, seed):
    rng = numpy.random.RandomState(seed)
    x = rng.standard_normal((T, B, V))
    t = rng.randint(1, V, (B, M)).astype(numpy.int32)
    return x, t


@testing.parameterize(*testing.product({
    'blank': [0, 2],
    'reduce': ['mean', 'no'],
    'lengths': [False, True],
}))
class TestCTC:

    T, B, V, M = 5, 3, 3, 2

    def _inputs(self):
        x, t = _data(self.T, self.B, self.V, self.M, seed=self.blank)
        # Labels may not be the blank: map them onto the other symbols.
        others = [k for k in range(self.V) if k != self.blank]
        t = numpy.array(others, numpy.int32)[t % len(others)]
        t[0, 1] = t[0, 0]           # a repeated label needs a blank between
        if self.lengths:
            in_len = numpy.array([5, 3, 4], numpy.int32)
            lab_len = numpy.array([2, 1, 0], numpy.int32)
        else:
            in_len = lab_len = None
        return x, t, in_len, lab_len

    def test_forward_is_the_sum_over_alignments(self):
        x, t, in_len, lab_len = self._inputs()
        frames = [cpuframe.Variable(x[i].astype(numpy.float32))
                  for i in range(self.T)]
        loss = F.connectionist_temporal_classification(
            frames, t, self.blank, in_len, lab_len, reduce=self.reduce)
        T_b = in_len if in_len is not None else [self.T] * self.B
        L_b = lab_len if lab_len is not None else [self.M] * self.B
        expected = numpy.array([
            _brute_force_loss(x[:T_b[b], b], t[b, :L_b[b]], self.blank,
                              T_b[b]) for b in range(self.B)])
        if self.reduce == 'mean':
            assert loss.shape == ()
            numpy.testing.assert_allclose(loss.array, expected.mean(),
                                          rtol=1e-5)
        else:
            assert loss.shape == (self.B,)
            numpy.testing.assert_allclose(loss.array, expected, rtol=1e-5)

    def test_backward_is_the_numerical_gradient(self):
        x, t, in_len, lab_len = self._inputs()
        gy = (numpy.array(1.3) if self.reduce == 'mean' else
              numpy.array([0.5, -1.0, 2.0]))

        def f(xs):
            return F.connectionist_temporal_classification(
                list(F.separate(xs, axis=0)), t, self.blank, in_len, lab_len,
                reduce=self.reduce)

        gradient_check.check_backward(f, x, gy, dtype=numpy.float64,
                                      atol=1e-5, rtol=1e-4)


def test_frames_past_input_length_get_no_gradient():
    x, t = _data(4, 2, 3, 1, seed=3)
    xv = cpuframe.Variable(x)
    loss = F.connectionist_temporal_classification(
        list(F.separate(xv, axis=0)), t, 0, numpy.array([2, 4]))
    loss.backward()
    assert numpy.all(xv.grad[2:, 0] == 0) and numpy.any(xv.grad[2:, 1] != 0)


@pytest.mark.skipif(not intel64.is_ideep_available(),
                    reason='oneDNN native module unavailable')
def test_frames_on_the_intel64_device_give_the_numpy_result():
    x, t = _data(4, 2, 3, 2, seed=4)
    x = x.astype(numpy.float32)
    ref = F.connectionist_temporal_classification(
        [cpuframe.Variable(x[i]) for i in range(4)], t, 0)
    frames = [cpuframe.Variable(intel64.from_numpy(x[i])) for i in range(4)]
    got = F.connectionist_temporal_classification(frames, t, 0)
    numpy.testing.assert_allclose(numpy.asarray(got.array), ref.array,
                                  rtol=1e-6)
    got.backward()
    ref.backward()


def test_bad_input_is_refused_before_work():
    x, t = _data(3, 2, 3, 2, seed=5)
    frames = [x[i] for i in range(3)]
    ctc = F.connectionist_temporal_classification
    with pytest.raises(TypeError, match='x must be a list'):
        ctc(x, t, 0)
    with pytest.raises(TypeError, match='blank_symbol'):
        ctc(frames, t, 0.0)
    with pytest.raises(ValueError, match=r'blank_symbol must lie in \[0, 3\)'):
        ctc(frames, t, 3)
    with pytest.raises(ValueError, match="'mean' and 'no'"):
        ctc(frames, t, 0, reduce='sum')
    with pytest.raises(ValueError, match='differ from the blank'):
        ctc(frames, numpy.zeros((2, 2), numpy.int32), 0)
    with pytest.raises(ValueError, match='input_length must lie'):
        ctc(frames, t, 0, input_length=numpy.array([4, 1]))
    with pytest.raises(ValueError, match='label_length must lie'):
        ctc(frames, t, 0, label_length=numpy.array([3, 1]))
    with pytest.raises(ValueError, match='same shape'):
        ctc([x[0], x[1][:1]], t, 0)


def test_labels_longer_than_the_input_give_inf_loss_and_zero_gradient():
    x, t = _data(2, 2, 3, 2, seed=6)
    t[1] = [1, 1]        # needs 3 frames (label, blank, label); has 2
    xv = cpuframe.Variable(x)
    loss = F.connectionist_temporal_classification(
        list(F.separate(xv, axis=0)), t, 0, reduce='no')
    assert numpy.isfinite(loss.array[0]) and loss.array[1] == numpy.inf
    loss.grad = numpy.ones(2)
    with numpy.errstate(all='raise'):
        loss.backward()
    assert numpy.all(xv.grad[:, 1] == 0) and numpy.all(numpy.isfinite(xv.grad))
