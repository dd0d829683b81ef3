"""Helpers to test exports (Chainer's ``onnx_chainer.testing``):
``input_generator`` makes deterministic inputs, ``get_test_data_set``
writes test cases per opset, ``test_onnxruntime`` checks an
``export_testcase`` directory in ONNX Runtime."""
from cpuframe.onnx_chainer.testing import (
    get_test_data_set,  # noqa: F401
    input_generator,  # noqa: F401
    test_onnxruntime,  # noqa: F401
)
