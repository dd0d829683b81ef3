"""CUDAProfileHook: NVTX ranges around functions, for the CUDA profiler."""
from cpuframe import function_hook
from cpuframe.backends import cuda


class CUDAProfileHook(function_hook.FunctionHook):
    """Function hook marking each forward and backward as an NVTX range.

    Needs CuPy and a GPU: constructing it without them raises
    ``RuntimeError``.
    """

    name = 'CUDAProfileHook'

    def __init__(self):
        try:
            cuda.check_cuda_available()
        except RuntimeError as e:
            raise RuntimeError(
                'CUDAProfileHook: needs CuPy and a GPU ({})'.format(e)
            ) from None
        from cupy.cuda import nvtx
        self._nvtx = nvtx

    def forward_preprocess(self, function, in_data):
        self._nvtx.RangePush(function.label + '.forward')

    def forward_postprocess(self, function, in_data):
        self._nvtx.RangePop()

    def backward_preprocess(self, function, in_data, out_grad):
        self._nvtx.RangePush(function.label + '.backward')

    def backward_postprocess(self, function, in_data, out_grad):
        self._nvtx.RangePop()
