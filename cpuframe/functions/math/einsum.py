"""Einstein summation over any number of operands."""
import string

from cpuframe import backend, utils
from cpuframe.function_node import FunctionNode
from cpuframe.variable import as_array


def _parse(subscripts, ndims):
    """Explicit ``(input letter strings, output letters)`` for ``ndims``.

    Expands ``...`` into fresh letters (aligned to the right, as NumPy
    broadcasts them) and makes the implicit output explicit.
    """
    if not isinstance(subscripts, str):
        raise TypeError('einsum: subscripts must be a str, got {!r}'.format(
            type(subscripts).__name__))
    s = subscripts.replace(' ', '')
    if s.count('->') > 1:
        raise ValueError('einsum: more than one "->" in {!r}'.format(
            subscripts))
    lhs, arrow, out = s.partition('->')
    ins = lhs.split(',')
    if len(ins) != len(ndims):
        raise ValueError('einsum: {!r} names {} operands, got {}'.format(
            subscripts, len(ins), len(ndims)))
    letters = set(string.ascii_letters)
    for term in ins + [out]:
        bad = set(term.replace('...', '')) - letters
        if bad or term.count('...') > 1:
            raise ValueError('einsum: invalid subscripts {!r}'.format(
                subscripts))
    used = set(s)
    fresh = [c for c in string.ascii_letters if c not in used]
    n_ell = 0
    for term, nd in zip(ins, ndims):
        named = len(term.replace('...', ''))
        if '...' in term:
            n_ell = max(n_ell, nd - named)
        elif named != nd:
            raise ValueError('einsum: operand with subscripts {!r} must have '
                             '{} dimensions, got {}'.format(term, named, nd))
        if nd < named:
            raise ValueError('einsum: operand with subscripts {!r} has only '
                             '{} dimensions'.format(term, nd))
    ell = ''.join(fresh[:n_ell])
    expanded = []
    for term, nd in zip(ins, ndims):
        k = nd - len(term.replace('...', ''))
        expanded.append(term.replace('...', ell[n_ell - k:] if k else ''))
    if arrow:
        if '...' in out:
            out = out.replace('...', ell)
        elif ell:
            raise ValueError('einsum: the output of {!r} must keep "..." '
                             'since the operands have broadcast dimensions'
                             .format(subscripts))
        for c in out:
            if c not in ''.join(expanded):
                raise ValueError('einsum: output subscript {!r} appears in '
                                 'no operand'.format(c))
        if len(set(out)) != len(out):
            raise ValueError('einsum: output subscripts {!r} repeat a '
                             'letter'.format(out))
    else:
        joined = ''.join(t.replace('...', '') for t in ins)
        out = ell + ''.join(sorted(c for c in set(joined)
                                   if joined.count(c) == 1))
    return expanded, out


class EinSum(FunctionNode):
    """``numpy.einsum`` with explicit, letters-only subscripts."""

    def __init__(self, ins, out):
        self.ins = ins
        self.out = out

    # (checked once per signature: FunctionNode._type_check_attrs)
    _type_check_attrs = ()

    def check_type_forward(self, in_types):
        from cpuframe.utils import type_check
        for t in in_types:
            type_check.expect(t.dtype.kind == 'f',
                              t.dtype == in_types[0].dtype)

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        self.retain_inputs(tuple(range(len(inputs))))
        spec = ','.join(self.ins) + '->' + self.out
        try:
            y = xp.einsum(spec, *inputs)
        except ValueError as e:
            raise ValueError('einsum: cannot evaluate {!r} on shapes {}: {}'
                             .format(spec, [x.shape for x in inputs], e)
                             ) from e
        return utils.force_array(y, inputs[0].dtype),

    def backward(self, indexes, grad_outputs):
        xs = self.get_retained_inputs()
        gy, = grad_outputs
        return tuple(self._grad(i, xs, gy) for i in indexes)

    def _grad(self, k, xs, gy):
        # d/dx_k = einsum(gy, the other operands -> subscripts of x_k), with
        # two fixes numpy's einsum cannot express directly: a letter that
        # x_k repeats (a diagonal) is renamed and tied back by an identity
        # matrix, and a letter found only in x_k is broadcast by a vector of
        # ones.
        from cpuframe.functions.array.broadcast import broadcast_to
        from cpuframe.functions.math.sum import sum as sum_
        x = xs[k]
        xp = backend.get_array_module(x.array)
        sizes = {}
        for term, v in zip(self.ins, xs):
            for c, n in zip(term, v.shape):
                sizes[c] = max(sizes.get(c, 1), n)
        term = self.ins[k]
        subs = [self.out] + [t for i, t in enumerate(self.ins) if i != k]
        ops = [gy] + [v for i, v in enumerate(xs) if i != k]
        avail = set(''.join(subs))
        spare = [c for c in string.ascii_letters
                 if c not in set(''.join(self.ins) + self.out)]
        target = ''
        for c in term:
            if c in target:
                r = spare.pop()
                subs.append(c + r)
                ops.append(xp.eye(sizes[c], dtype=x.dtype))
                target += r
                continue
            if c not in avail:
                subs.append(c)
                ops.append(xp.ones(sizes[c], dtype=x.dtype))
                avail.add(c)
            target += c
        g = EinSum(subs, target).apply(ops)[0]
        if g.shape != x.shape:
            # a size-1 axis of x that NumPy broadcast against the others
            axes = tuple(i for i, (a, b) in enumerate(zip(g.shape, x.shape))
                         if a != b and b == 1)
            if axes:
                g = sum_(g, axis=axes, keepdims=True)
            if g.shape != x.shape:
                g = broadcast_to(g, x.shape)
        return g


def einsum(subscripts, *operands):
    """Einstein summation, ``numpy.einsum(subscripts, *operands)``.

    Supports what ``numpy.einsum`` supports for its string form: explicit
    (``'ij,jk->ik'``) and implicit (``'ij,jk'``) outputs, repeated letters
    within an operand (diagonals, traces), ``...`` broadcasting.  Each
    operand's gradient is an einsum of the output gradient with the other
    operands, so it is differentiable again.

    Args:
        subscripts (str): the comma-separated subscripts of the operands,
            optionally ``->`` and those of the output.
        operands: float arrays or Variables of one dtype.

    >>> a = np.arange(6.).reshape(2, 3)
    >>> F.einsum('ij,j->i', a, np.array([1., 0., 1.])).array
    array([2., 8.])
    >>> F.einsum('ii', np.eye(3) * 2).array
    array(6.)
    """
    if not operands:
        raise ValueError('einsum: at least one operand is required')
    ndims = [as_array(x).ndim for x in operands]
    ins, out = _parse(subscripts, ndims)
    return EinSum(ins, out).apply(operands)[0]
