"""The convnet harness's modules (benchmarks/convnet/*.py, not a package),
loaded once per process under one name each, for the tests of the harness."""
import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / 'benchmarks' / 'convnet'


def load(name):
    """``benchmarks/convnet/<name>.py`` as a module."""
    key = 'cpuframe_convnet_bench_' + name
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key,
                                                      BENCH / (name + '.py'))
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]
