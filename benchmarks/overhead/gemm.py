"""A Linear layer's three matrix products on NumPy arrays: NumPy's BLAS as
cpuframe's NumPy path runs it (one BLAS thread below 16M multiply-adds,
``cpuframe._blas_threads``) against oneDNN's sgemm on the same arrays
(``gemm_arrays``: Linear's route on NumPy arrays, which 'always' takes and
'auto' does not, see ``linear._profitable``).

    python benchmarks/overhead/gemm.py [--shapes 100x784x100,32x64x64]

Per shape m x k x n (x (m, k), W (n, k), gy (m, n)): the forward x W^T, the
input gradient gy W and the weight gradient gy^T x, the fastest of 7 blocks
of about 30 ms each, in microseconds. Run it with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset (they slow NumPy's BLAS) and the thread count of the
benchmark (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS).
"""
import argparse
import time

import numpy

SHAPES = ('1x4x4,8x8x8,32x4x64,32x64x2,16x128x10,32x32x32,32x64x64,'
          '100x100x100,64x256x128,100x256x256,100x784x100,128x512x512,'
          '100x784x1000,256x1024x1024,64x4096x4096')


def _best(fn, blocks=7, block_s=0.03):
    fn()
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    n = max(3, int(block_s / once))
    best = float('inf')
    for _ in range(blocks):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - start) / n)
    return best * 1e6


def _pairs(native, blas, x, W, gy):
    # (NumPy's BLAS, sgemm) per product
    return [
        (lambda: blas.matmul(x, W.T),
         lambda: native.gemm_arrays(x, W, False, True)),
        (lambda: blas.matmul(gy, W),
         lambda: native.gemm_arrays(gy, W, False, False)),
        (lambda: blas.matmul(gy.T, x),
         lambda: native.gemm_arrays(gy, x, True, False)),
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--shapes', default=SHAPES)
    args = parser.parse_args(argv)
    from cpuframe import _blas_threads
    from cpuframe.backends import intel64
    native = intel64.native()
    rng = numpy.random.default_rng(0)
    print('{:>16}  {:>22}  {:>22}  {:>22}'.format(
        'm x k x n', 'x W^T: BLAS / sgemm', 'gy W: BLAS / sgemm',
        'gy^T x: BLAS / sgemm'))
    for shape in args.shapes.split(','):
        m, k, n = (int(v) for v in shape.split('x'))
        x = rng.standard_normal((m, k), dtype=numpy.float32)
        W = rng.standard_normal((n, k), dtype=numpy.float32)
        gy = rng.standard_normal((m, n), dtype=numpy.float32)
        pairs = _pairs(native, _blas_threads, x, W, gy)
        cols = []
        for blas, sgemm in pairs:
            numpy.testing.assert_allclose(sgemm(), blas(), rtol=1e-3,
                                          atol=1e-3 * k)
            cols.append('{:.1f} / {:.1f}'.format(_best(blas), _best(sgemm)))
        print('{:>16}  {:>22}  {:>22}  {:>22}'.format(shape, *cols),
              flush=True)
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
