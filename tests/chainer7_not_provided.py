"""Why cpuframe does not provide what chainer7_module_tree.py lists as not
provided, and the table in docs/chainer-coverage.md made from it.

``python tests/chainer7_not_provided.py`` rewrites the table between the
markers there; test_chainer_module_tree.py checks that it is current.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chainer7_module_tree as data  # noqa: E402

BEGIN = '<!-- not-provided:begin (python tests/chainer7_not_provided.py) -->'
END = '<!-- not-provided:end -->'

_CAFFE = ('reading or writing Caffe models needs protobuf and Caffe\'s schema; '
          'the vision models load Chainer\'s `.npz` files (convert a '
          '`.caffemodel` with Chainer)')
_THEANO = 'Theano is unmaintained and does not install on Python 3.11 / NumPy 2'
_CUDA_KERNELS = ('CUDA kernel-source generators of Chainer\'s GPU N-d pooling '
                 'and im2col; cpuframe\'s N-d ops do not use them')

MODULE_REASONS = {
    'chainer.exporters': _CAFFE,
    'chainer.exporters.caffe': _CAFFE,
    'chainer.links.caffe': _CAFFE,
    'chainer.links.caffe.caffe_function': _CAFFE,
    'chainer.links.caffe.protobuf3': _CAFFE,
    'chainer.links.caffe.protobuf3.caffe_pb2': _CAFFE,
    'chainer.functions.theano': _THEANO,
    'chainer.functions.theano.theano_function': _THEANO,
    'chainer.links.theano': _THEANO,
    'chainer.links.theano.theano_function': _THEANO,
    'chainer.iterators.dali_iterator': 'NVIDIA DALI is a GPU-only data pipeline',
    'chainer.functions.pooling.average_pooling_nd_kernel': _CUDA_KERNELS,
    'chainer.functions.pooling.max_pooling_nd_kernel': _CUDA_KERNELS,
    'chainer.functions.pooling.pooling_nd_kernel': _CUDA_KERNELS,
    'chainer.utils.conv_nd_kernel': _CUDA_KERNELS,
    'chainer.testing.doctest_helper': 'Chainer\'s own set-up for the doctests '
                                      'of its documentation',
}

# (module, name) -> reason, before the patterns below.
NAME_REASONS = {
    ('chainer.iterators', 'DaliIterator'): MODULE_REASONS[
        'chainer.iterators.dali_iterator'],
    ('chainer.links', 'TheanoFunction'): _THEANO,
    ('chainer.training.extensions.util', 'erase_console'):
        'Windows console helpers of Chainer\'s progress bar',
    ('chainer.training.extensions.util', 'set_console_cursor_position'):
        'Windows console helpers of Chainer\'s progress bar',
    ('chainer.optimizer', 'make_deprecation_message'):
        'internal helper of Chainer\'s deprecation warnings',
}

_PATTERNS = [
    (r'^(cudnn|libcudnn)$', 'cuDNN module handles (CUDA only)'),
    (r'Hyperparameter$', 'per-optimizer `Hyperparameter` subclasses, an '
                         'implementation detail (cpuframe\'s optimizers use '
                         '`optimizer.Hyperparameter`)'),
    (r'^(available_cpu|BACKWORDC)$', 'SciPy-availability flags and constants '
                                     'of Chainer\'s implementation (cpuframe '
                                     'needs no SciPy)'),
    (r'^[A-Z][A-Z_]*C?$', 'constants internal to Chainer\'s implementation'),
]
_DEFAULT = 'internal to Chainer\'s implementation (cpuframe\'s has its own)'


def name_reason(module, name):
    if (module, name) in NAME_REASONS:
        return NAME_REASONS[(module, name)]
    for pattern, reason in _PATTERNS:
        if re.search(pattern, name):
            return reason
    return _DEFAULT


def render():
    """The README table: one row per module and reason."""
    lines = [BEGIN, '', '| Chainer 7.8.1 | not provided | why |', '|---|---|---|']
    by_reason = {}
    for module in sorted(data.NOT_PROVIDED_MODULES):
        by_reason.setdefault(MODULE_REASONS[module], []).append(module)
    for reason, modules in by_reason.items():
        lines.append('| {} | the module{} | {} |'.format(
            ', '.join('`{}`'.format(m) for m in modules),
            's' if len(modules) > 1 else '', reason))
    for module in sorted(data.NOT_PROVIDED_NAMES):
        groups = {}
        for name in sorted(data.NOT_PROVIDED_NAMES[module].split()):
            groups.setdefault(name_reason(module, name), []).append(name)
        for reason, names in groups.items():
            lines.append('| `{}` | {} | {} |'.format(
                module, ', '.join('`{}`'.format(n) for n in names), reason))
    lines += ['', END]
    return '\n'.join(lines)


def readme_path():
    # (the table moved from the README to docs/chainer-coverage.md)
    return os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), 'docs', 'chainer-coverage.md')


def current_block(text):
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < 0:
        return None
    return text[start:end + len(END)]


if __name__ == '__main__':
    path = readme_path()
    with open(path) as f:
        text = f.read()
    block = current_block(text)
    if block is None:
        sys.exit('docs/chainer-coverage.md has no {} ... {} markers'.format(
            BEGIN, END))
    new = text.replace(block, render())
    with open(path, 'w') as f:
        f.write(new)
    print('docs/chainer-coverage.md: not-provided table rewritten')
