import pytest

from cpuframe.dataset import download


@pytest.fixture
def dataset_root(tmp_path, monkeypatch):
    """An empty dataset root; any network access fails the test."""
    root = tmp_path / 'dataset_root'
    monkeypatch.setenv('CPUFRAME_DATASET_ROOT', str(root))
    monkeypatch.setattr(download, '_dataset_root', None)

    def no_network(url, *args, **kwargs):
        raise AssertionError('test tried to download {}'.format(url))

    monkeypatch.setattr(download.request, 'urlopen', no_network)
    return root
