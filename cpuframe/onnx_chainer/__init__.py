"""onnx_chainer: export a cpuframe (Chainer) model to ONNX, as Chainer 7's.

``import onnx_chainer`` under ``python -m cpuframe.compat`` (or
``import cpuframe.onnx_chainer as onnx_chainer``)::

    onnx_chainer.export(model, x, filename='model.onnx')
    onnx_chainer.export_testcase(model, x, 'out_dir')

One forward of ``model`` on the given arguments is traced (define-by-run:
the graph is what ran), each function node is converted to ONNX nodes by
the converter of its class (``onnx_chainer.functions.converters``, or the
``external_converters`` given), parameters become initializers named as in
Chainer (``param_l1_W``) and the model is checked with ``onnx.checker``.
Needs the ``onnx`` package (``pip install 'cpuframe[onnx]'``).
"""
from cpuframe.onnx_chainer import (  # noqa: F401
    _onnx,  # noqa: F401 - the clear ImportError first
    functions,
    onnx_helper,
    replace_func,
    testing,
)
from cpuframe.onnx_chainer.export import (  # noqa: F401
    MAXIMUM_OPSET_VERSION,
    MINIMUM_OPSET_VERSION,
    RetainInputHook,
    export,
)
from cpuframe.onnx_chainer.export_testcase import export_testcase  # noqa: F401

__all__ = ['MAXIMUM_OPSET_VERSION', 'MINIMUM_OPSET_VERSION',
           'RetainInputHook', 'export', 'export_testcase', 'functions',
           'onnx_helper', 'replace_func', 'testing']
