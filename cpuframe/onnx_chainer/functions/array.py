"""Shape and layout functions."""
import numpy

from cpuframe.onnx_chainer.context import to_numpy
from cpuframe.onnx_chainer.functions._common import (
    const,
    ints_input,
    node,
    slice_op,
    unsupported,
)


def _reshape(params):
    shape = const(params, numpy.asarray(params.func.shape, numpy.int64),
                  'shape')
    return node(params, 'Reshape', [params.input_names[0], shape])


def _transpose(params):
    axes = params.func.axes
    nd = len(params.func.inputs[0].shape)
    perm = list(range(nd))[::-1] if axes is None else \
        [int(a) % nd for a in axes]
    return node(params, 'Transpose', perm=perm)


def _swapaxes(params):
    nd = len(params.func.inputs[0].shape)
    perm = list(range(nd))
    a, b = params.func.axis1 % nd, params.func.axis2 % nd
    perm[a], perm[b] = perm[b], perm[a]
    return node(params, 'Transpose', perm=perm)


def _concat(params):
    nd = len(params.func.inputs[0].shape)
    return node(params, 'Concat', axis=int(params.func.axis) % nd)


def _broadcast_to(params):
    if params.opset_version < 8:
        raise unsupported(params, 'Expand needs opset 8')
    shape = const(params, numpy.asarray(params.func._shape, numpy.int64),
                  'shape')
    return node(params, 'Expand', [params.input_names[0], shape])


def _axes_op(op):
    def convert(params):
        axis = params.func.axis
        if axis is None:
            return node(params, op)
        axes = [int(a) for a in (axis if isinstance(axis, (tuple, list))
                                 else (axis,))]
        out_nd = len(params.func.inputs[0].shape) + (
            len(axes) if op == 'Unsqueeze' else 0)
        axes = [a % out_nd for a in axes]
        name = ints_input(params, axes, 'axes', 13)
        if name is None:
            return node(params, op, axes=axes)
        return node(params, op, [params.input_names[0], name])
    return convert


def _identity(params):
    return node(params, 'Identity')


def _cast(params):
    from onnx import helper
    to = helper.np_dtype_to_tensor_dtype(numpy.dtype(params.func.type))
    return node(params, 'Cast', to=to)


CONVERTERS = {
    'Reshape': _reshape,
    'Transpose': _transpose,
    'Swapaxes': _swapaxes,
    'Concat': _concat,
    'BroadcastTo': _broadcast_to,
    'ExpandDims': _axes_op('Unsqueeze'),
    'Squeeze': _axes_op('Squeeze'),
    'Identity': _identity,
    'Copy': _identity,
    'Cast': _cast,
}


_INT64_MIN = -(2 ** 63)


def _squeeze_unsqueeze(params, gb, x, op, axes, out_names=None):
    """``op`` (Squeeze/Unsqueeze) of ``axes``, as an attribute or an input
    by opset; returns the output name."""
    name = ints_input(params, axes, op.lower() + '_axes', 13)
    if name is None:
        if out_names:
            return gb.op_output_named(op, [x], out_names, axes=axes)[0]
        return gb.op(op, [x], axes=axes)
    if out_names:
        return gb.op_output_named(op, [x, name], out_names)[0]
    return gb.op(op, [x, name])


def _get_item(params):
    f = params.func
    shape = tuple(f.inputs[0].shape)
    slices = f.slices
    if any(_is_index_array(s) for s in slices):
        return _get_item_advanced(params, shape, slices)
    used = sum(1 for s in slices if s is not None and s is not Ellipsis)
    expanded = []
    for s in slices:
        if s is Ellipsis:
            expanded += [slice(None)] * (len(shape) - used)
        else:
            expanded.append(s)
    starts, ends, axes, steps, squeezed, unsqueezed = [], [], [], [], [], []
    axis = out_pos = 0
    for s in expanded:
        if s is None:
            unsqueezed.append(out_pos)
            out_pos += 1
            continue
        dim = shape[axis]
        if isinstance(s, slice):
            start, stop, step = s.indices(dim)
            if (start, stop, step) != (0, dim, 1):
                if step < 0 and stop < 0:
                    stop = _INT64_MIN  # before the first element
                starts.append(start)
                ends.append(stop)
                axes.append(axis)
                steps.append(step)
            out_pos += 1
        else:
            i = int(s) + (dim if int(s) < 0 else 0)
            starts.append(i)
            ends.append(i + 1)
            axes.append(axis)
            steps.append(1)
            squeezed.append(axis)
        axis += 1
    from cpuframe.onnx_chainer.functions._common import GraphBuilder
    gb = GraphBuilder()
    x = params.input_names[0]
    if axes:
        x = slice_op(params, gb, x, starts, ends, axes, steps)
    if squeezed:
        x = _squeeze_unsqueeze(params, gb, x, 'Squeeze', squeezed)
    if unsqueezed:
        x = _squeeze_unsqueeze(params, gb, x, 'Unsqueeze', unsqueezed)
    if not (axes or squeezed or unsqueezed):
        x = gb.op('Identity', [x])
    return gb.nodes(params.output_names)


def _is_index_array(s):
    return isinstance(s, list) or (
        hasattr(s, 'dtype') and getattr(s, 'ndim', 0) > 0)


def _get_item_advanced(params, shape, slices):
    """One integer index array among slices (``x[idx]``, ``x[:, idx]``,
    ``x[1:, idx, ::2]``): the slices, then a Gather of the indexed axis
    (NumPy puts the index array's axes where the indexed axis was, as
    Gather does). Other advanced forms (several index arrays, boolean
    masks, an index array beside ints or None) raise."""
    from cpuframe.onnx_chainer.functions._common import GraphBuilder
    arrays = [i for i, s in enumerate(slices) if _is_index_array(s)]
    others = [s for s in slices if not _is_index_array(s)]
    if len(arrays) != 1 or any(
            s is None or not (isinstance(s, slice) or s is Ellipsis)
            for s in others):
        raise unsupported(params, 'advanced indexing other than one integer '
                          'index array among slices')
    index = numpy.asarray(slices[arrays[0]])
    if index.dtype.kind not in 'iu':
        raise unsupported(params, 'advanced indexing with a {} index '
                          'array'.format(index.dtype))
    n_ell = sum(1 for s in slices if s is Ellipsis)
    expanded = []
    for s in slices:
        if s is Ellipsis:
            expanded += [slice(None)] * (len(shape) - len(slices) + n_ell)
        else:
            expanded.append(s)
    expanded += [slice(None)] * (len(shape) - len(expanded))
    gb = GraphBuilder()
    x = params.input_names[0]
    starts, ends, axes, steps = [], [], [], []
    axis = None
    for i, s in enumerate(expanded):
        if not isinstance(s, slice):
            axis = i
            continue
        start, stop, step = s.indices(shape[i])
        if (start, stop, step) != (0, shape[i], 1):
            if step < 0 and stop < 0:
                stop = _INT64_MIN
            starts.append(start)
            ends.append(stop)
            axes.append(i)
            steps.append(step)
    if axes:
        x = slice_op(params, gb, x, starts, ends, axes, steps)
    dim = shape[axis]
    # (negative indices counted from the end here: Gather takes them only
    # from opset 11)
    index = numpy.where(index < 0, index + dim, index).astype(numpy.int64)
    gb.op('Gather', [x, const(params, index, 'indices')], axis=axis)
    return gb.nodes(params.output_names)


def _split_sizes(f, axis):
    return [int(meta[0][axis]) for meta in f._output_meta]


def _split_axis(params):
    f = params.func
    nd = len(f.inputs[0].shape)
    axis = int(f.axis) % nd
    sizes = _split_sizes(f, axis)
    name = ints_input(params, sizes, 'split', 13)
    if name is None:
        return node(params, 'Split', axis=axis, split=sizes)
    return node(params, 'Split', [params.input_names[0], name], axis=axis)


def _separate(params):
    from cpuframe.onnx_chainer.functions._common import GraphBuilder
    f = params.func
    nd = len(f.inputs[0].shape)
    axis = int(f.axis) % nd
    n = len(params.output_names)
    gb = GraphBuilder()
    name = ints_input(params, [1] * n, 'split', 13)
    x = params.input_names[0]
    if name is None:
        pieces = gb.op('Split', [x], num_outputs=n, axis=axis,
                       split=[1] * n)
    else:
        pieces = gb.op('Split', [x, name], num_outputs=n, axis=axis)
    if n == 1:
        pieces = (pieces,)
    for piece, out in zip(pieces, params.output_names):
        _squeeze_unsqueeze(params, gb, piece, 'Squeeze', [axis], [out])
    return gb.nodes()


def _stack(params):
    from cpuframe.onnx_chainer.functions._common import GraphBuilder
    f = params.func
    nd = len(f.inputs[0].shape) + 1
    axis = int(f.axis) % nd
    gb = GraphBuilder()
    parts = [_squeeze_unsqueeze(params, gb, x, 'Unsqueeze', [axis])
             for x in params.input_names]
    gb.op('Concat', parts, axis=axis)
    return gb.nodes(params.output_names)


def _tile(params):
    from cpuframe.onnx_chainer.functions._common import GraphBuilder
    f = params.func
    shape = tuple(f.inputs[0].shape)
    reps = f.reps if isinstance(f.reps, tuple) else (f.reps,)
    reps = tuple(int(r) for r in reps)
    gb = GraphBuilder()
    x = params.input_names[0]
    if len(reps) > len(shape):
        new_shape = (1,) * (len(reps) - len(shape)) + shape
        s = const(params, numpy.asarray(new_shape, numpy.int64), 'shape')
        x = gb.op('Reshape', [x, s])
    else:
        reps = (1,) * (len(shape) - len(reps)) + reps
    r = const(params, numpy.asarray(reps, numpy.int64), 'repeats')
    gb.op('Tile', [x, r])
    return gb.nodes(params.output_names)


def _pad(params):
    f = params.func
    mode = {'constant': 'constant', 'edge': 'edge',
            'reflect': 'reflect'}.get(f.mode)
    if mode is None:
        raise unsupported(params, 'mode {!r}'.format(f.mode))
    widths = f._pad
    pads = [int(b) for b, _ in widths] + [int(e) for _, e in widths]
    value = f.keywords.get('constant_values', 0)
    if numpy.ndim(value) != 0:
        raise unsupported(params, 'per-axis constant_values')
    dtype = f.inputs[0].dtype
    if params.opset_version >= 11:
        names = [params.input_names[0],
                 const(params, numpy.asarray(pads, numpy.int64), 'pads')]
        if mode == 'constant':
            names.append(const(params, numpy.asarray(value, dtype), 'value'))
        return node(params, 'Pad', names, mode=mode)
    kw = {'value': float(value)} if mode == 'constant' else {}
    return node(params, 'Pad', pads=pads, mode=mode, **kw)


def _where(params):
    if params.opset_version < 9:
        raise unsupported(params, 'Where needs opset 9')
    # cpuframe's Where keeps its condition as a constant of the node
    cond = const(params, numpy.asarray(
        to_numpy(params.func.condition), numpy.bool_),
        'condition')
    return node(params, 'Where', [cond] + list(params.input_names))


CONVERTERS.update({
    'GetItem': _get_item,
    'SplitAxis': _split_axis,
    'Separate': _separate,
    'Stack': _stack,
    'Tile': _tile,
    'Pad': _pad,
    'Where': _where,
})


def _promoted_concat(params):
    """Hstack/Vstack/Dstack: each input reshaped to its promoted shape,
    then joined."""
    from cpuframe.onnx_chainer.functions._common import GraphBuilder
    f = params.func
    out_shape = list(f._output_meta[0][0])
    axis = f._join_axis
    gb = GraphBuilder()
    parts = []
    for k, (name, in_shape, size) in enumerate(zip(
            params.input_names, f._in_shapes, f._sizes)):
        promoted = list(out_shape)
        promoted[axis] = size
        if tuple(promoted) != tuple(in_shape):
            s = const(params, numpy.asarray(promoted, numpy.int64),
                      'shape{}'.format(k))
            name = gb.op('Reshape', [name, s])
        parts.append(name)
    gb.op('Concat', parts, axis=axis)
    return gb.nodes(params.output_names)


def _repeat(params):
    from cpuframe.onnx_chainer.functions._common import GraphBuilder
    f = params.func
    if len(f.repeats) != 1:
        raise unsupported(params, 'a count per element')
    r = int(f.repeats[0])
    shape = list(f.inputs[0].shape)
    gb = GraphBuilder()
    x = params.input_names[0]
    axis = f.axis
    if axis is None:
        shape = [int(numpy.prod(shape))]
        s = const(params, numpy.asarray(shape, numpy.int64), 'flat')
        x = gb.op('Reshape', [x, s])
        axis = 0
    axis %= len(shape)
    # each element followed by its copies: a new axis after `axis`, tiled,
    # merged back
    x = _squeeze_unsqueeze(params, gb, x, 'Unsqueeze', [axis + 1])
    reps = [1] * (len(shape) + 1)
    reps[axis + 1] = r
    x = gb.op('Tile', [x, const(params, numpy.asarray(reps, numpy.int64),
                                'repeats')])
    out = list(shape)
    out[axis] *= r
    gb.op('Reshape', [x, const(params, numpy.asarray(out, numpy.int64),
                               'shape')])
    return gb.nodes(params.output_names)


def _permutate(params):
    f = params.func
    indices = numpy.asarray(to_numpy(f.indices), numpy.int64)
    if f.inv:
        indices = numpy.argsort(indices)
    nd = len(f.inputs[0].shape)
    name = const(params, indices, 'indices')
    return node(params, 'Gather', [params.input_names[0], name],
                axis=int(f.axis) % nd)


def _flip(params):
    if params.opset_version < 10:
        raise unsupported(params, 'a step of -1 needs opset 10')
    axis = int(params.func.axis)
    names = [const(params, numpy.asarray(v, numpy.int64), n)
             for v, n in (([-1], 'starts'), ([_INT64_MIN], 'ends'),
                          ([axis], 'axes'), ([-1], 'steps'))]
    return node(params, 'Slice', [params.input_names[0]] + names)


def _permute_axes(params):
    return node(params, 'Transpose', perm=[int(a) for a in params.func._perm])


def _select_item(params):
    from cpuframe.onnx_chainer.functions._common import GraphBuilder
    if params.opset_version < 11:
        raise unsupported(params, 'GatherElements needs opset 11')
    x, t = params.input_names
    gb = GraphBuilder()
    t64 = gb.op('Cast', [t], to=7)  # INT64
    t2 = _squeeze_unsqueeze(params, gb, t64, 'Unsqueeze', [1])
    picked = gb.op('GatherElements', [x, t2], axis=1)
    _squeeze_unsqueeze(params, gb, picked, 'Squeeze', [1],
                       list(params.output_names))
    return gb.nodes()


CONVERTERS.update({
    'Hstack': _promoted_concat,
    'Vstack': _promoted_concat,
    'Dstack': _promoted_concat,
    'Repeat': _repeat,
    'Permutate': _permutate,
    'FlipUD': _flip,
    'FlipLR': _flip,
    'Rollaxis': _permute_axes,
    'Moveaxis': _permute_axes,
    'SelectItem': _select_item,
})


def _resize_images(params):
    f = params.func
    if params.opset_version < 11:
        raise unsupported(params, 'Resize with aligned corners needs opset 11')
    n, c, h, w = (int(v) for v in params.func.inputs[0].shape)
    mode = {'bilinear': 'linear', 'nearest': 'nearest'}.get(f.mode)
    if mode is None or not f.align_corners:
        raise unsupported(params, 'mode={!r}, align_corners={!r} (bilinear '
                          'with aligned corners is exported)'.format(
                              f.mode, f.align_corners))
    from cpuframe.onnx_chainer.functions._common import GraphBuilder
    gb = GraphBuilder()
    roi = const(params, numpy.zeros(0, numpy.float32), 'roi')
    scales = const(params, numpy.zeros(0, numpy.float32), 'scales')
    sizes = const(params, numpy.asarray([n, c, f.out_H, f.out_W],
                                        numpy.int64), 'sizes')
    gb.op('Resize', [params.input_names[0], roi, scales, sizes], mode=mode,
          coordinate_transformation_mode='align_corners')
    return gb.nodes(params.output_names)


CONVERTERS['ResizeImages'] = _resize_images
