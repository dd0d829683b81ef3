"""Helpers to test exports (Chainer's ``onnx_chainer.testing``):
``input_generator`` makes deterministic inputs, ``test_onnxruntime``
checks an ``export_testcase`` directory in ONNX Runtime."""
from cpuframe.onnx_chainer.testing import (
    input_generator,  # noqa: F401
    test_onnxruntime,  # noqa: F401
)
