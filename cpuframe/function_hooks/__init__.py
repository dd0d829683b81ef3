"""Function hooks (Chainer's ``chainer.function_hooks``).

Register one for every function called in a block with ``with hook:``, or
for one function node with ``node.add_hook(hook)``.
"""
from cpuframe.function_hooks.cuda_profile import CUDAProfileHook
from cpuframe.function_hooks.cupy_memory_profile import CupyMemoryProfileHook
from cpuframe.function_hooks.debug_print import PrintHook
from cpuframe.function_hooks.timer import TimerHook

__all__ = ['CUDAProfileHook', 'CupyMemoryProfileHook', 'PrintHook',
           'TimerHook']
