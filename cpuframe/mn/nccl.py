"""ChainerMN's ``chainermn.nccl``: CuPy's NCCL binding where there is one.

Importable everywhere, as in ChainerMN: ``_available`` tells whether CuPy
with NCCL imported; only then are NCCL's names (``get_build_version``,
``get_unique_id``, ``get_version``, ``NCCL_FLOAT``/``16``/``32``/``64``,
``NCCL_SUM``, ``NcclCommunicator``, ``NcclError``) here.
"""
try:
    from cupy.cuda.nccl import (  # noqa: F401 - re-exported
        NCCL_FLOAT,
        NCCL_FLOAT16,
        NCCL_FLOAT32,
        NCCL_FLOAT64,
        NCCL_SUM,
        NcclCommunicator,
        NcclError,
        get_build_version,
        get_unique_id,
        get_version,
    )
    _available = True
except Exception:  # noqa: BLE001 - no CuPy, no NCCL, no CUDA driver
    _available = False
