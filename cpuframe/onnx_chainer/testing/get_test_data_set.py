"""Export test cases under one directory per opset (Chainer's
``onnx_chainer.testing.get_test_data_set``)."""
import os

#: Where :func:`gen_test_data_set` writes, relative to the working directory.
TEST_OUT_DIR = 'out'


def gen_test_data_set(model, args, name, opset_version, **kwargs):
    """``export_testcase(model, args, ...)`` at ``opset_version`` into
    ``TEST_OUT_DIR/opset<N>/<name>``, with the model's array module's
    random generator seeded (42) first; returns that directory. Other
    keyword arguments go to ``export_testcase``."""
    from cpuframe.onnx_chainer.export_testcase import export_testcase
    model.xp.random.seed(42)
    path = os.path.join(TEST_OUT_DIR, 'opset{}'.format(opset_version), name)
    export_testcase(model, args, path, opset_version=opset_version, **kwargs)
    return path
