import pickle
import sys
import types

import numpy
import pytest

from cpuframe import datasets


@pytest.fixture
def fake_pillow(monkeypatch):
    """A stand-in for ``PIL.Image`` whose images are .npy files."""
    opened = []

    class FakeImage:
        def __init__(self, path):
            self.array = numpy.load(path)
            self.closed = False
            opened.append(self)

        def __array__(self, dtype=None, copy=None):
            return self.array if dtype is None else self.array.astype(dtype)

        def close(self):
            self.closed = True

    image = types.ModuleType('PIL.Image')
    image.open = FakeImage
    pil = types.ModuleType('PIL')
    pil.Image = image
    monkeypatch.setitem(sys.modules, 'PIL', pil)
    monkeypatch.setitem(sys.modules, 'PIL.Image', image)
    return opened


@pytest.fixture
def image_files(tmp_path):
    rgb = numpy.arange(2 * 3 * 3, dtype=numpy.uint8).reshape(2, 3, 3)  # HWC
    grey = numpy.array([[0, 255], [7, 9]], dtype=numpy.uint8)
    numpy.save(tmp_path / 'rgb.npy', rgb)
    numpy.save(tmp_path / 'grey.npy', grey)
    return tmp_path, rgb, grey


def test_image_dataset_reads_chw(fake_pillow, image_files):
    root, rgb, grey = image_files
    ds = datasets.ImageDataset(['rgb.npy', 'grey.npy'], root=str(root))
    assert len(ds) == 2
    x = ds[0]
    assert x.shape == (3, 2, 3) and x.dtype == numpy.float32
    numpy.testing.assert_array_equal(x[1], rgb[:, :, 1])
    g = ds[1]
    assert g.shape == (1, 2, 2)
    numpy.testing.assert_array_equal(g[0], grey)
    assert all(f.closed for f in fake_pillow)


def test_image_dataset_paths_file_and_dtype(fake_pillow, image_files):
    root, _, grey = image_files
    listing = root / 'list.txt'
    listing.write_text('grey.npy\n\nrgb.npy\n')
    ds = datasets.ImageDataset(str(listing), root=str(root),
                               dtype=numpy.float64)
    assert len(ds) == 2
    assert ds[0].dtype == numpy.float64
    assert [a.shape for a in ds[0:2]] == [(1, 2, 2), (3, 2, 3)]
    clone = pickle.loads(pickle.dumps(ds))
    numpy.testing.assert_array_equal(clone[0][0], grey)


def test_labeled_image_dataset(fake_pillow, image_files):
    root, _, grey = image_files
    pairs = root / 'pairs.txt'
    pairs.write_text('grey.npy 3\nrgb.npy 7\n')
    ds = datasets.LabeledImageDataset(str(pairs), root=str(root),
                                      label_dtype=numpy.int64)
    x, t = ds[0]
    numpy.testing.assert_array_equal(x[0], grey)
    assert t.dtype == numpy.int64 and t.shape == () and int(t) == 3
    ds2 = datasets.LabeledImageDataset([('rgb.npy', 1)], root=str(root))
    x, t = ds2[0]
    assert x.shape == (3, 2, 3) and t.dtype == numpy.int32 and int(t) == 1


def test_labeled_image_dataset_bad_file(fake_pillow, tmp_path):
    pairs = tmp_path / 'pairs.txt'
    pairs.write_text('a.png 1\nb.png\n')
    with pytest.raises(ValueError, match='line 2 of .*pairs.txt'):
        datasets.LabeledImageDataset(str(pairs))
    pairs.write_text('a.png one\n')
    with pytest.raises(ValueError, match='not an integer'):
        datasets.LabeledImageDataset(str(pairs))


@pytest.mark.parametrize('cls, args', [
    (datasets.ImageDataset, ([],)),
    (datasets.LabeledImageDataset, ([],)),
])
def test_missing_pillow_is_a_clear_import_error(monkeypatch, cls, args):
    monkeypatch.setitem(sys.modules, 'PIL', None)
    with pytest.raises(ImportError, match=cls.__name__ +
                       r' needs Pillow.*cpuframe\[image\]'):
        cls(*args)


def test_real_pillow_roundtrip(tmp_path):
    Image = pytest.importorskip('PIL.Image')
    rgb = numpy.random.RandomState(0).randint(0, 256, (4, 5, 3)).astype(
        numpy.uint8)
    Image.fromarray(rgb).save(tmp_path / 'a.png')
    x = datasets.ImageDataset(['a.png'], root=str(tmp_path))[0]
    numpy.testing.assert_array_equal(x, rgb.transpose(2, 0, 1))


# -- zipped image datasets -------------------------------------------------------

def _zip_of_arrays(path, arrays):
    import io
    import zipfile
    with zipfile.ZipFile(str(path), 'w') as zf:
        zf.writestr('sub/', b'')  # a directory entry is skipped
        for name, array in arrays.items():
            buf = io.BytesIO()
            numpy.save(buf, array)
            zf.writestr(name, buf.getvalue())
    return str(path)


def test_zipped_image_dataset(fake_pillow, tmp_path):
    rgb = numpy.arange(12, dtype=numpy.uint8).reshape(2, 2, 3)
    grey = numpy.array([[1, 2], [3, 4]], numpy.uint8)
    zpath = _zip_of_arrays(tmp_path / 'a.zip', {'sub/rgb.npy': rgb,
                                                'grey.npy': grey})
    ds = datasets.ZippedImageDataset(zpath)
    assert len(ds) == 2
    x = ds[0]
    assert x.dtype == numpy.float32 and x.shape == (3, 2, 2)
    numpy.testing.assert_array_equal(x, rgb.transpose(2, 0, 1))
    numpy.testing.assert_array_equal(ds.get_example('grey.npy'),
                                     grey[None])
    ds2 = pickle.loads(pickle.dumps(ds))
    numpy.testing.assert_array_equal(ds2[1], grey[None])
    assert datasets.ZippedImageDataset(zpath, dtype=numpy.uint8)[1].dtype \
        == numpy.uint8


def test_labeled_and_multi_zipped(fake_pillow, tmp_path):
    a = _zip_of_arrays(tmp_path / 'a.zip',
                       {'x.npy': numpy.zeros((1, 1), numpy.uint8),
                        'y.npy': numpy.ones((1, 1), numpy.uint8)})
    b = _zip_of_arrays(tmp_path / 'b.zip',
                       {'z.npy': numpy.full((1, 1), 2, numpy.uint8)})
    labels = tmp_path / 'labels.txt'
    labels.write_text('y.npy 7\nx.npy 3\n')
    ds = datasets.LabeledZippedImageDataset(a, str(labels))
    assert len(ds) == 2
    img, label = ds[0]
    assert img.ravel().tolist() == [1.0]
    assert label.dtype == numpy.int32 and int(label) == 7
    multi = datasets.MultiZippedImageDataset([a, b])
    assert len(multi) == 3
    assert [float(multi[i].ravel()[0]) for i in range(3)] == [0.0, 1.0, 2.0]
    assert float(multi[-1].ravel()[0]) == 2.0
    with pytest.raises(IndexError):
        multi.get_example(3)
    labels.write_text('only-one-field\n')
    with pytest.raises(ValueError, match='invalid format at line 0'):
        datasets.LabeledZippedImageDataset(a, str(labels))


def test_available_flag(fake_pillow):
    from cpuframe.datasets import image_dataset
    assert image_dataset.available is True


def test_available_false_without_pillow(monkeypatch):
    from cpuframe.datasets import image_dataset
    monkeypatch.setitem(sys.modules, 'PIL', None)
    monkeypatch.setitem(sys.modules, 'PIL.Image', None)
    assert image_dataset.available is False
    with pytest.raises(ImportError, match='Pillow'):
        datasets.ZippedImageDataset('unused.zip')
