import numpy

import cpuframe.links as L


def test_prelu():
    link = L.PReLU((3,))
    assert link.W.shape == (3,) and (link.W.array == 0.25).all()
    x = numpy.array([[-1.0, 2.0, -4.0]], numpy.float32)
    numpy.testing.assert_allclose(link(x).array, [[-0.25, 2.0, -1.0]])


def test_maxout():
    link = L.Maxout(4, 3, 2)
    assert link.linear.W.shape == (6, 4)
    assert [n for n, _ in link.namedparams()] == ['/linear/W', '/linear/b']
    x = numpy.random.RandomState(0).normal(size=(5, 4)).astype(numpy.float32)
    h = x @ link.linear.W.array.T + link.linear.b.array
    numpy.testing.assert_allclose(link(x).array, h.reshape(5, 3, 2).max(axis=2),
                                  rtol=1e-5)
