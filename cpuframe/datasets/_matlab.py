"""A small reader of MATLAB level-5 MAT-files: the numeric arrays in them
(what SVHN's ``.mat`` files hold), so ``get_svhn`` does not need SciPy.

Format (MathWorks, "MAT-File Format", level 5): a 128-byte header whose
last two bytes, ``'IM'`` or ``'MI'``, give the byte order; then data
elements, each an 8-byte tag (type, byte count) or a 4-byte "small element"
tag with up to 4 bytes of data, padded to 8 bytes.  A variable is an
``miMATRIX`` element, possibly inside an ``miCOMPRESSED`` (zlib) one; its
sub-elements are the array flags (class), the dimensions, the name and the
real part, stored column-major in a type that may be narrower than the
class (a double array of small integers is often stored as uint8).
"""
import zlib

import numpy

_MI_INT8, _MI_INT32, _MI_UINT32 = 1, 5, 6
_MI_MATRIX, _MI_COMPRESSED = 14, 15

# Data types of the elements holding numbers.
_MI_DTYPES = {1: 'i1', 2: 'u1', 3: 'i2', 4: 'u2', 5: 'i4', 6: 'u4',
              7: 'f4', 9: 'f8', 12: 'i8', 13: 'u8'}

# Array classes (the flags' low byte) of numeric arrays, and their dtype.
_MX_DTYPES = {6: 'f8', 7: 'f4', 8: 'i1', 9: 'u1', 10: 'i2', 11: 'u2',
              12: 'i4', 13: 'u4', 14: 'i8', 15: 'u8'}
_MX_NAMES = {1: 'cell', 2: 'struct', 3: 'object', 4: 'char', 5: 'sparse',
             16: 'function'}
_COMPLEX_FLAG = 0x0800


class _Reader:
    def __init__(self, data, order, path):
        self.data = data
        self.order = order  # '<' or '>'
        self.path = path

    def error(self, message):
        return ValueError('{}: {}'.format(self.path, message))

    def u32(self, offset):
        if offset + 4 > len(self.data):
            raise self.error('truncated MAT-file (a tag at byte {} runs past '
                             'the end)'.format(offset))
        return int(numpy.frombuffer(self.data, self.order + 'u4', 1,
                                    offset)[0])

    def element(self, offset):
        """``(type, payload start, payload bytes, next offset)``."""
        first = self.u32(offset)
        if first >> 16:  # small data element: bytes in the high half
            mtype, nbytes = first & 0xffff, first >> 16
            if nbytes > 4:
                raise self.error('bad small data element at byte {}'.format(
                    offset))
            return mtype, offset + 4, nbytes, offset + 8
        nbytes = self.u32(offset + 4)
        start = offset + 8
        if start + nbytes > len(self.data):
            raise self.error('truncated MAT-file (an element at byte {} '
                             'announces {} bytes, {} remain)'.format(
                                 offset, nbytes, len(self.data) - start))
        padded = nbytes if first == _MI_COMPRESSED else (nbytes + 7) // 8 * 8
        return first, start, nbytes, start + padded

    def numbers(self, mtype, start, nbytes):
        if mtype not in _MI_DTYPES:
            raise self.error('unsupported data type {} in a numeric '
                             'array'.format(mtype))
        dtype = numpy.dtype(self.order + _MI_DTYPES[mtype])
        if nbytes % dtype.itemsize:
            raise self.error('{} bytes is not a whole number of {} '
                             'values'.format(nbytes, dtype))
        return numpy.frombuffer(self.data, dtype, nbytes // dtype.itemsize,
                                start)


def _matrix(reader, start, end, wanted):
    """``(name, array or None)`` of the miMATRIX payload at [start, end)."""
    subs = []
    offset = start
    while offset < end and len(subs) < 4:
        mtype, s, n, offset = reader.element(offset)
        subs.append((mtype, s, n))
    if len(subs) < 3:
        raise reader.error('malformed array element at byte {}'.format(start))
    (ftype, fs, fn), (dtype_, ds, dn), (ntype, ns, nn) = subs[:3]
    if ftype != _MI_UINT32 or fn != 8 or dtype_ != _MI_INT32 or \
            ntype != _MI_INT8:
        raise reader.error('malformed array element at byte {}'.format(start))
    flags = reader.u32(fs)
    name = bytes(reader.data[ns:ns + nn]).decode('ascii', 'replace')
    if wanted is not None and name not in wanted:
        return name, None
    mclass = flags & 0xff
    if mclass not in _MX_DTYPES:
        raise reader.error('variable {!r} is a {} array; only numeric arrays '
                           'are read'.format(name, _MX_NAMES.get(
                               mclass, 'class-{}'.format(mclass))))
    if flags & _COMPLEX_FLAG:
        raise reader.error('variable {!r} is complex; only real arrays are '
                           'read'.format(name))
    if len(subs) < 4:
        raise reader.error('variable {!r} has no data'.format(name))
    dims = tuple(int(d) for d in reader.numbers(_MI_INT32, ds, dn))
    values = reader.numbers(*subs[3])
    if values.size != int(numpy.prod(dims)):
        raise reader.error('variable {!r} holds {} values, its dimensions '
                           '{} need {}'.format(name, values.size, dims,
                                               int(numpy.prod(dims))))
    array = values.reshape(dims, order='F')
    return name, array.astype(_MX_DTYPES[mclass], copy=False)


def loadmat(path, variable_names=None):
    """The numeric arrays of a level-5 MAT-file, as a dict name -> array
    (MATLAB's shape, native byte order; like ``scipy.io.loadmat`` without
    its ``__header__`` entries).

    Args:
        path (str): the file.
        variable_names (iterable of str or None): read only these.

    Raises:
        ValueError: the file is not a level-5 MAT-file (v7.3 files are
            HDF5), is truncated, or a wanted variable is not a real numeric
            array; the message names the file.
    """
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 128:
        raise ValueError('{}: not a MATLAB 5 MAT-file (shorter than its '
                         '128-byte header)'.format(path))
    text = data[:116]
    if text.startswith(b'MATLAB 7.3'):
        raise ValueError('{}: a MATLAB 7.3 (HDF5) MAT-file; only level-5 '
                         'MAT-files are read'.format(path))
    indicator = data[126:128]
    if indicator == b'IM':
        order = '<'
    elif indicator == b'MI':
        order = '>'
    else:
        raise ValueError('{}: not a MATLAB 5 MAT-file (no IM/MI byte-order '
                         'mark)'.format(path))
    wanted = None if variable_names is None else set(variable_names)
    out = {}
    reader = _Reader(data, order, path)
    offset = 128
    while offset < len(data):
        mtype, start, nbytes, offset = reader.element(offset)
        if mtype == _MI_COMPRESSED:
            try:
                inner = zlib.decompress(data[start:start + nbytes])
            except zlib.error as e:
                raise ValueError('{}: corrupt compressed element ({})'.format(
                    path, e)) from e
            sub = _Reader(inner, order, path)
            mtype, start, nbytes, _ = sub.element(0)
        else:
            sub = reader
        if mtype != _MI_MATRIX:
            continue  # not a variable (e.g. subsystem data)
        name, array = _matrix(sub, start, start + nbytes, wanted)
        if array is not None:
            out[name] = array
    if wanted is not None and wanted - set(out):
        raise ValueError('{}: no variable(s) {}'.format(
            path, sorted(wanted - set(out))))
    return out
