#!/bin/bash
# Builds peak.cpp against the oneDNN wheel of the Python given as $PYTHON
# (default: python3) and runs it. Unsets the OpenBLAS variables (they do not
# matter to oneDNN; kept out for uniformity with the other benchmarks).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
prefix=$("$py" - <<'PY'
import importlib.metadata as m, pathlib
d = m.distribution("onednn-devel-cpu-gomp")
for f in d.files:
    if str(f).endswith("include/oneapi/dnnl/dnnl.hpp"):
        print(pathlib.Path(d.locate_file(f)).resolve().parents[3])
        break
PY
)
out=${TMPDIR:-/tmp}/cpuframe-bf16-peak
g++ -O2 -std=c++17 "$here/peak.cpp" -I"$prefix/include" -L"$prefix/lib" -ldnnl \
    -Wl,-rpath,"$prefix/lib" -o "$out"
exec env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$out" "$@"
