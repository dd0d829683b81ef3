#!/usr/bin/env python
"""Export train_mnist.py's model to ONNX and check it in ONNX Runtime.

    python examples/train_mnist.py --model cnn --epoch 3 --out result
    python examples/export_onnx.py --snapshot "$(ls result/snapshot_iter_*)" \\
        --out mnist.onnx

Builds the predictor of ``train_mnist.py`` (``--model cnn`` or ``mlp``),
loads the weights of a trainer snapshot when given, exports it with
``onnx_chainer.export`` (inference mode: batch normalization uses its
running averages, dropout is gone), and, when ``onnxruntime`` is installed,
runs the ONNX model on test digits and compares it with cpuframe.
Written against Chainer's API (``onnx_chainer``, ``chainer``).
"""
import argparse
import os
import sys

import numpy

import cpuframe as chainer
import cpuframe.onnx_chainer as onnx_chainer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_mnist  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--model', choices=('mlp', 'cnn'), default='cnn')
    parser.add_argument('--unit', '-u', type=int, default=256)
    parser.add_argument('--snapshot', help='a trainer snapshot of '
                        'train_mnist.py to take the weights from')
    parser.add_argument('--out', '-o', default='mnist.onnx')
    parser.add_argument('--opset', type=int, default=None)
    args = parser.parse_args()

    _, test = train_mnist.get_data('digits',
                                   ndim=1 if args.model == 'mlp' else 3)
    x = numpy.stack([test[i][0] for i in range(8)])
    n_out = 10
    predictor = train_mnist.MLP(args.unit, n_out) if args.model == 'mlp' \
        else train_mnist.ConvNet(n_out)
    with chainer.using_config('train', False):
        predictor(x)  # the lazily sized layers
    if args.snapshot:
        chainer.serializers.load_npz(
            args.snapshot, predictor, path='updater/model:main/predictor/')
    model = onnx_chainer.export(predictor, x, filename=args.out,
                                opset_version=args.opset,
                                input_names=['digits'],
                                output_names=['scores'], no_testcase=True)
    print('wrote {} (opset {}, {} nodes: {})'.format(
        args.out, model.opset_import[0].version, len(model.graph.node),
        ' '.join(n.op_type for n in model.graph.node)))
    try:
        import onnxruntime
    except ImportError:
        print('onnxruntime is not installed: not checked')
        return 0
    session = onnxruntime.InferenceSession(
        args.out, providers=['CPUExecutionProvider'])
    got = session.run(None, {'digits': x})[0]
    with chainer.using_config('train', False):
        expected = predictor(x).array
    diff = float(numpy.abs(got - expected).max())
    print('ONNX Runtime vs cpuframe on {} digits: max |difference| {:.2e}, '
          'same predictions: {}'.format(
              len(x), diff, bool((got.argmax(1) == expected.argmax(1)).all())))
    return 0 if diff < 1e-3 else 1


if __name__ == '__main__':
    sys.exit(main())
