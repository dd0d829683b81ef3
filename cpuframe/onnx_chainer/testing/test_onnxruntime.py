"""``check_model_expect``: run an ``export_testcase`` directory in ONNX
Runtime and compare with the outputs cpuframe wrote."""
import glob
import os

import numpy
import onnx


def _load(path):
    tensor = onnx.TensorProto()
    with open(path, 'rb') as f:
        tensor.ParseFromString(f.read())
    return tensor.name, onnx.numpy_helper.to_array(tensor)


def _sorted_pb(data_dir, prefix):
    paths = glob.glob(os.path.join(data_dir, prefix + '_*.pb'))
    return sorted(paths, key=lambda p: int(
        os.path.basename(p)[len(prefix) + 1:-3]))


def check_model_expect(test_path, input_names=None, rtol=1e-5, atol=1e-5):
    """Run ``test_path/model.onnx`` on ``test_path/test_data_set_0``'s inputs
    in ONNX Runtime and assert its outputs equal the saved ones (within
    ``rtol``/``atol``). ``input_names``: feed only these graph inputs (by
    default every ``input_<i>.pb``). Needs ``onnxruntime``."""
    import onnxruntime
    model_path = os.path.join(test_path, 'model.onnx')
    data_dir = os.path.join(test_path, 'test_data_set_0')
    feeds = dict(_load(p) for p in _sorted_pb(data_dir, 'input'))
    if input_names is not None:
        feeds = {k: v for k, v in feeds.items() if k in input_names}
    session = onnxruntime.InferenceSession(
        model_path, providers=['CPUExecutionProvider'])
    names = [o.name for o in session.get_outputs()]
    got = dict(zip(names, session.run(names, feeds)))
    expected = [_load(p) for p in _sorted_pb(data_dir, 'output')]
    assert len(expected) == len(names), \
        'check_model_expect: {} outputs saved, the model has {}'.format(
            len(expected), len(names))
    for name, value in expected:
        assert name in got, 'check_model_expect: no model output named ' \
            '{!r} (has {})'.format(name, names)
        numpy.testing.assert_allclose(got[name], value, rtol=rtol, atol=atol,
                                      err_msg='output ' + name)
