// Deferred values of Tensors: see the contract at the top of deferred.hpp.
#include "deferred.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#if defined(CPUFRAME_HAVE_OPENMP)
#include <omp.h>
#endif

#include "array_utils.hpp"
#include "ops.hpp"
#include "simd/kernels.hpp"

namespace cpuframe {

namespace {
std::mutex g_pending_mutex;
std::vector<std::weak_ptr<Tensor>> g_pending;
}  // namespace

DeferredCounters& deferred_counters() {
    static DeferredCounters* counters = new DeferredCounters();
    return *counters;
}

void Tensor::defer(std::shared_ptr<PendingValues> pending) {
    {
        std::lock_guard<std::mutex> lock(pending_mutex_);
        pending_ = std::move(pending);
        has_pending_.store(true, std::memory_order_release);
    }
    deferred_counters().deferred.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(g_pending_mutex);
    // Entries of tensors settled or gone are dropped here now and then (a
    // forward pass without writes from Python never calls settle_all).
    if (g_pending.size() >= 64) {
        g_pending.erase(std::remove_if(g_pending.begin(), g_pending.end(),
                                       [](const std::weak_ptr<Tensor>& w) {
                                           TensorPtr t = w.lock();
                                           return !t || !t->is_pending();
                                       }),
                        g_pending.end());
    }
    g_pending.push_back(weak_from_this());
}

void Tensor::settle_pending() const {
    NoGilLock lock(pending_mutex_, false);
    if (!pending_) return;  // another thread computed them meanwhile
    // On an exception the values stay pending: a later read tries again.
    pending_->run(pending_->relu);
    pending_.reset();
    has_pending_.store(false, std::memory_order_release);
}

bool Tensor::fuse_relu() {
    if (!is_pending()) return false;
    NoGilLock lock(pending_mutex_, false);
    if (!pending_ || !pending_->relu_fusable || pending_->relu) return false;
    if (!pending_->relu_fusable()) return false;
    pending_->relu = true;
    deferred_counters().fused_relu.fetch_add(1, std::memory_order_relaxed);
    return true;
}

// The range check runs on the vector kernel of the current ISA (the plain loop
// compiled for the baseline ISA read 4-5x slower than NumPy's isfinite). A
// team only pays off from a few MB: waking the other threads costs about
// what one thread needs for 1 MB at cache speed.
bool all_within(const float* p, std::int64_t n, float low, float high) {
    const SimdKernels& k = simd_kernels();
    constexpr std::int64_t kTeamFrom = std::int64_t{1} << 20;
#if defined(CPUFRAME_HAVE_OPENMP)
    if (n >= kTeamFrom && omp_get_max_threads() > 1) {
        int bad = 0;
#pragma omp parallel reduction(|: bad)
        {
            const std::int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
            const std::int64_t begin = n * t / nt, end = n * (t + 1) / nt;
            bad |= !k.all_within(p + begin, end - begin, low, high);
        }
        return bad == 0;
    }
#endif
    return k.all_within(p, n, low, high);
}

bool all_finite(const float* p, std::int64_t n) {
    const float big = std::numeric_limits<float>::max();
    return all_within(p, n, -big, big);
}

void relu_values(const float* x, float* y, std::int64_t n) {
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for simd schedule(static) if (n >= (std::int64_t{1} << 16))
#endif
    for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] <= 0.0f ? 0.0f : x[i];
}

void defer_primitive(const TensorPtr& y, const dnnl::primitive& primitive,
                     const std::unordered_map<int, memory>& args,
                     const std::vector<TensorPtr>& inputs, const char* fn,
                     std::function<dnnl::primitive()> make_fused) {
    auto pending = std::make_shared<PendingValues>();
    const std::int64_t n = static_cast<std::int64_t>(y->nbytes() / sizeof(float));
    float* y_data = static_cast<float*>(y->mem().get_data_handle());
    // The buffers themselves, not only their Tensors: a weight re-laid out in
    // place later (reorder_inplace) swaps its buffer.
    std::vector<std::shared_ptr<void>> buffers;
    std::vector<std::pair<const float*, std::int64_t>> spans;
    for (const TensorPtr& t : inputs) {
        buffers.push_back(t->owner());
        spans.emplace_back(static_cast<const float*>(t->data()),
                           static_cast<std::int64_t>(t->nbytes() / sizeof(float)));
    }
    pending->relu_fusable = [spans, buffers] {
        for (const auto& in : spans) {
            if (!all_finite(in.first, in.second)) return false;
        }
        return true;
    };
    const std::string name = fn;
    pending->run = [primitive, args, buffers, n, y_data, name,
                    make_fused = std::move(make_fused)](bool relu) {
        guard_dnnl(name.c_str(), [] { return std::string("deferred output"); }, [&] {
            const dnnl::primitive fused = relu ? make_fused() : dnnl::primitive();
            DeferredCounters& c = deferred_counters();
            if (fused) {
                execute_any_gil(fused, args);
                c.relu_postop.fetch_add(1, std::memory_order_relaxed);
                return;
            }
            execute_any_gil(primitive, args);
            if (relu) {
                relu_values(y_data, y_data, n);
                c.relu_loop.fetch_add(1, std::memory_order_relaxed);
            }
        });
    };
    y->defer(std::move(pending));
}

void settle_all_pending() {
    std::vector<std::weak_ptr<Tensor>> pending;
    {
        std::lock_guard<std::mutex> lock(g_pending_mutex);
        if (g_pending.empty()) return;
        pending.swap(g_pending);
    }
    for (const std::weak_ptr<Tensor>& w : pending) {
        if (TensorPtr t = w.lock()) t->settle();
    }
}


// The Python functions of deferral.
void register_deferred(py::module_& m) {
    m.def(
        "fuse_relu",
        [](const py::object& obj) {
            return is_tensor(obj) && obj.cast<TensorPtr>()->fuse_relu();
        },
        py::arg("x"),
        "Folds relu into x's deferred computation (a convolution output not read "
        "yet): True when done, and x then holds relu of those values once read; "
        "False, changing nothing, otherwise. Only for an x nothing else refers to.");
    m.def(
        "is_pending",
        [](const py::object& obj) { return is_tensor(obj) && obj.cast<TensorPtr>()->is_pending(); },
        py::arg("x"), "Whether x's values are deferred (not computed yet).");
    m.def("deferred_stats", [] {
        DeferredCounters& c = deferred_counters();
        py::dict d;
        d["deferred"] = c.deferred.load();
        d["fused_relu"] = c.fused_relu.load();
        d["relu_postop"] = c.relu_postop.load();
        d["relu_loop"] = c.relu_loop.load();
        return d;
    }, "Counts: tensors whose values were deferred, relus folded into them, and "
       "how the folded relus ran (as oneDNN post-ops or as a loop afterwards).");
    m.def("settle_pending", &settle_all_pending,
          "Computes every deferred Tensor value now.");
}

}  // namespace cpuframe
