"""``collections.abc`` under the name Chainer code imports it by."""
from collections.abc import *  # noqa: F401,F403
from collections.abc import (  # noqa: F401
    Callable,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    Sequence,
)
