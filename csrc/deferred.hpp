// Deferred values of Tensors and the relu folded into them.
//
// The contract, in one place (the Python side, cpuframe.backends.intel64
// may_defer / claimable_by_relu and F.relu, relies on it):
//
// When an output is computed lazily: an op asked to defer (a convolution or
// a batch normalization forward whose inputs are all device Tensors, see
// may_defer) creates its output Tensor and its primitive, then calls
// defer_primitive instead of executing it. The Tensor is returned at once;
// its values are computed the first time anything reads its buffer.
//
// When a relu may be folded in ("claimable by relu"): F.relu calls
// fuse_relu(x) only when x is a temporary that nothing else can see
// (claimable_by_relu in Python checks the reference counts) and x's values
// are still pending. Tensor::fuse_relu then asks the deferred computation:
// it agrees (relu_fusable) only when run(true) gives exactly relu of
// run(false)'s values, i.e. no input holds a NaN or an infinity (a oneDNN
// relu post-op turns NaN into 0; NumPy's relu keeps it). On agreement the
// computation later writes relu of its values (a relu post-op, or when none
// can be made the plain primitive followed by relu_values, NaN-keeping) and
// relu returns the same Tensor.
//
// Who settles: Tensor::settle(), which every accessor of the buffer calls
// first (mem(), data(), mem_as(), to_numpy, raw_view, ...). Before anything
// writes into an existing buffer from Python (raw_view, copy_from),
// settle_all_pending() computes every deferred Tensor, so a deferred op
// never sees inputs changed after it ran. The computation keeps its inputs'
// buffers (owner()) alive until then, not only their Tensors.
//
// Threads: any thread may settle any Tensor (settle_all_pending settles those
// of other threads too) while its owner reads it or folds relu in. The
// deferred state of a Tensor is guarded by a lock of its own, taken without
// holding the GIL (NoGilLock), and the values are computed exactly once; on
// an exception they stay pending and a later read tries again.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>

#include "tensor.hpp"

namespace cpuframe {

// A computation of a Tensor's values deferred until they are first read, so
// that the op consuming them may still fold itself in (a convolution output
// that relu turns into a convolution with a relu post-op). run(relu) writes
// the values; relu_fusable says whether run can apply relu as part of it.
struct PendingValues {
    std::function<void(bool relu)> run;
    // Whether run(true) gives exactly relu of run(false)'s values here (a
    // relu post-op turns NaN into 0, so a convolution answers false when an
    // input holds a NaN or an infinity); unset: never.
    std::function<bool()> relu_fusable;
    bool relu = false;
};

// Whether n floats hold neither a NaN nor an infinity (any GIL state).
bool all_finite(const float* p, std::int64_t n);
// Whether low <= p[i] <= high for all n floats (false at a NaN; any GIL state).
bool all_within(const float* p, std::int64_t n, float low, float high);
// y = x where x > 0 or x is NaN, else 0 (the NumPy path's relu), over n
// floats, OpenMP-parallel; y may be x; any GIL state.
void relu_values(const float* x, float* y, std::int64_t n);

// Counts for tests and benchmarks: tensors deferred, relus folded into a
// deferred computation, and how those ran (oneDNN post-op or a loop after).
struct DeferredCounters {
    std::atomic<std::uint64_t> deferred{0}, fused_relu{0}, relu_postop{0}, relu_loop{0};
};
DeferredCounters& deferred_counters();

// Defers y = primitive(args) (y is args' DNNL_ARG_DST) until y is first
// read; relu may then be folded in: make_fused() gives the primitive with a
// relu post-op on the same memories (or an empty one: plain run, then a
// NaN-keeping relu loop). Folding is declined while an input holds a NaN or
// an infinity (a post-op relu turns NaN into 0). inputs: the Tensors args
// read (their buffers are kept alive until then). fn names errors.
void defer_primitive(const TensorPtr& y, const dnnl::primitive& primitive,
                     const std::unordered_map<int, memory>& args,
                     const std::vector<TensorPtr>& inputs, const char* fn,
                     std::function<dnnl::primitive()> make_fused);

// Computes the deferred values of every tensor that has some. Called before
// anything writes into an existing buffer from Python (raw_view, copy_from):
// a deferred computation then never sees inputs changed after its op ran.
void settle_all_pending();

// Waits for a lock without holding the GIL: the thread that holds the lock
// may run a primitive, which releases and re-takes the GIL; a waiter holding
// the GIL would deadlock with it. with_gil: the GIL is taken back once the
// lock is held (the caller needs it inside); else after the unlock.
class NoGilLock {
public:
    NoGilLock(std::mutex& m, bool with_gil) {
        if (PyGILState_Check()) nogil_.emplace();
        lock_ = std::unique_lock<std::mutex>(m);
        if (with_gil) nogil_.reset();
    }

private:
    std::optional<pybind11::gil_scoped_release> nogil_;  // released last
    std::unique_lock<std::mutex> lock_;
};

}  // namespace cpuframe
