"""Loads cpuframe's oneDNN extension, ``cpuframe._dnnl``, or records why it can't.

``load()`` returns the extension module or None; ``load_error()`` says why it is
None. Neither ever raises, so importing this module is always safe.
``disabled()`` and ``source_tree()`` tell a deliberate NumPy run from a source
checkout that shadows the installed package (see
``intel64.warn_if_native_missing``).

The extension links against ``libdnnl.so.3`` from the ``onednn-cpu-gomp`` wheel.
Its RPATH finds the library in ordinary installs; for the rest (oneDNN and
cpuframe in different prefixes, editable builds) the library is loaded here by
path first, after which the dynamic loader reuses it. No LD_LIBRARY_PATH needed.
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.metadata
import os
import site
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

_LIBRARY = "libdnnl.so.3"
_DISABLE_VAR = "CPUFRAME_DISABLE_NATIVE"

# The directory cpuframe was imported from (tests point it elsewhere).
_PACKAGE_DIR = Path(__file__).resolve().parent

_lock = threading.Lock()
_loaded = False
_module: ModuleType | None = None
_error: str | None = None


def load() -> ModuleType | None:
    """Return the ``cpuframe._dnnl`` module, or None when it cannot be used.

    The first call tries; later calls return the same result.
    """
    global _loaded, _module, _error
    with _lock:
        if not _loaded:
            _module, _error = _try_load()
            _loaded = True
    return _module


def load_error() -> str | None:
    """Why ``load()`` returns None, or None when the extension is loaded."""
    load()
    return _error


def disabled() -> bool:
    """True when ``CPUFRAME_DISABLE_NATIVE`` chooses the NumPy path on purpose."""
    return os.environ.get(_DISABLE_VAR, "") not in ("", "0")


def source_tree() -> Path | None:
    """The source checkout cpuframe was imported from, or None.

    A checkout has ``pyproject.toml`` and ``csrc/`` beside the package
    directory; an installed package (in site-packages) has neither. Python
    run from inside a checkout imports it ahead of the installed package.
    """
    root = _PACKAGE_DIR.parent
    if (root / "pyproject.toml").is_file() and (root / "csrc").is_dir():
        return root
    return None


def built_without_native() -> str | None:
    """Why the build skipped ``cpuframe._dnnl``, or None when it was built.

    The build writes ``cpuframe/_build_config.py``; a source checkout that was
    never built has none, and then nothing is known (None).
    """
    try:
        config = importlib.import_module("cpuframe._build_config")
    except ImportError:
        return None
    if getattr(config, "NATIVE_BUILT", True):
        return None
    reason = getattr(config, "NATIVE_REASON", "") or "no reason recorded"
    return f"cpuframe was built without its native module: {reason}"


def _try_load():
    if disabled():
        return None, f"disabled by {_DISABLE_VAR}"
    not_built = built_without_native()
    if not_built is not None:
        return None, not_built
    try:
        # libgomp and oneDNN read their settings once, when libdnnl loads.
        from cpuframe import _isa, _threads
        _threads.apply()
        _isa.apply()
        _preload_onednn()
        module = importlib.import_module("cpuframe._dnnl")
        _isa.configure(module)
        return module, None
    except Exception as e:  # noqa: BLE001 - any failure means "use the NumPy path"
        return None, f"the native module failed to load: {type(e).__name__}: {e}"


def _preload_onednn() -> None:
    # Without RTLD_GLOBAL: the extension only needs the loader to know the library
    # by its SONAME; dnnl's symbols stay out of other libraries' way.
    for path in _library_candidates():
        if path.is_file():
            try:
                ctypes.CDLL(str(path))
                return
            except OSError:
                continue


def _library_candidates() -> Iterator[Path]:
    try:
        dist = importlib.metadata.distribution("onednn-cpu-gomp")
        for file in dist.files or ():
            if file.name == _LIBRARY:
                yield Path(file.locate())
    except importlib.metadata.PackageNotFoundError:
        pass
    for prefix in (sys.prefix, sys.base_prefix, site.getuserbase()):
        yield Path(prefix, "lib", _LIBRARY)
