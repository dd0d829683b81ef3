"""Fixtures shared by the optimizer tests."""
import pytest

from cpuframe.backends import intel64


def _isas():
    order = ('scalar', 'avx2', 'avx512')
    try:
        best = intel64.native().kernel_isa_supported()
    except Exception:  # noqa: BLE001 - no native module: skipped anyway
        return ['scalar']
    return list(order[:order.index(best) + 1])


@pytest.fixture(params=_isas())
def kernel_isa(request):
    """Each kernel ISA this machine runs, set for the test: the native
    optimizer kernels' loops are compiled for the baseline ISA and for AVX2
    (vectorized: vsqrtps and vdivps round as the scalar operations do)."""
    mod = intel64.native()
    before = mod.kernel_isa()
    mod.set_kernel_isa(request.param)
    yield request.param
    mod.set_kernel_isa(before)
