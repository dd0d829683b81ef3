"""The ``onnx`` package, or an ImportError that says how to get it."""
try:
    import onnx  # noqa: F401
    from onnx import checker, helper, numpy_helper  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the machine
    raise ImportError(
        "onnx_chainer needs the onnx package: pip install 'cpuframe[onnx]' "
        '(importing onnx failed: {})'.format(error)) from error
