"""``onnx_chainer.export_testcase``: the model and a test data set, as
ONNX's backend tests lay them out."""
import os

import numpy

import cpuframe
from cpuframe.onnx_chainer import onnx_helper
from cpuframe.onnx_chainer.context import to_numpy
from cpuframe.onnx_chainer.export import export


def export_testcase(model, args, out_dir, output_grad=False, **kwargs):
    """Export ``model`` to ``out_dir/model.onnx`` with the data of the traced
    run: ``out_dir/test_data_set_0/input_<i>.pb`` (each graph input) and
    ``output_<i>.pb`` (each output), as ``TensorProto``s named as in the
    graph. With ``output_grad=True`` the backward from ones at the outputs
    runs too, and ``gradient_<i>.pb`` holds the gradient of each parameter
    (named as its initializer, in name order). Other keyword arguments are
    :func:`~cpuframe.onnx_chainer.export`'s. Returns the ONNX model.
    """
    os.makedirs(out_dir, exist_ok=True)
    kwargs['return_named_inout'] = True
    kwargs['no_testcase'] = True
    onnx_model, inputs, outputs = export(
        model, args, filename=os.path.join(out_dir, 'model.onnx'), **kwargs)
    data_dir = os.path.join(out_dir, 'test_data_set_0')
    os.makedirs(data_dir, exist_ok=True)
    for i, (name, var) in enumerate(inputs.items()):
        onnx_helper.write_tensor_pb(
            os.path.join(data_dir, 'input_{}.pb'.format(i)), name,
            to_numpy(var.array))
    for i, (name, var) in enumerate(outputs.items()):
        onnx_helper.write_tensor_pb(
            os.path.join(data_dir, 'output_{}.pb'.format(i)), name,
            to_numpy(var.array))
    if output_grad:
        for var in outputs.values():
            var.grad = var.xp.ones_like(var.array)
        if hasattr(model, 'cleargrads'):
            model.cleargrads()
        cpuframe.backward(list(outputs.values()))
        k = 0
        for name, param in sorted(model.namedparams()):
            if param.grad is None:
                continue
            onnx_helper.write_tensor_pb(
                os.path.join(data_dir, 'gradient_{}.pb'.format(k)),
                onnx_helper.cleanse_param_name(name),
                numpy.asarray(to_numpy(param.grad)))
            k += 1
    return onnx_model
