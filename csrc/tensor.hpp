// The native tensor of the Intel64 device (exposed as cpuframe._dnnl.Tensor,
// which cpuframe.backends.intel64 turns into the user-facing ``mdarray``).
//
// A Tensor is a oneDNN memory: a buffer plus the memory::desc saying how the
// logical elements lie in it (plain row-major, NHWC, or a blocked layout such as
// aBcd16b with zero padding). The layout a primitive chose travels with the data,
// so the next primitive consumes it without a trip through NCHW.
//
// Logical shape versus desc dims: the desc's dims are a row-major reshape of the
// logical shape. They are equal except for grouped convolution weights, whose
// logical shape is Chainer's (O, I/G, kh, kw) while oneDNN describes them as
// (G, O/G, I/G, kh, kw); both read the same bytes in plain layout.
//
// How an op file uses it (see convolution.cpp for a complete example):
//   TensorPtr x = as_tensor(fn, "x", x_obj);            // Tensor or float32 ndarray
//   ... create/cached primitive with format_tag::any or x->desc() ...
//   TensorPtr xin = in_layout(x, pd.src_desc());        // reorders only if needed
//   TensorPtr y = Tensor::empty(shape, pd.dst_desc());
//   execute(prim, {{DNNL_ARG_SRC, xin->mem()}, {DNNL_ARG_DST, y->mem()}});
//   return y;                                           // Python wraps nothing
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace cpuframe {

namespace py = pybind11;
using dnnl::memory;

class Tensor;
using TensorPtr = std::shared_ptr<Tensor>;
using Shape = std::vector<std::int64_t>;

// A Tensor's deferred values (deferred.hpp: PendingValues, defer_primitive,
// settle_all_pending, and the contract of deferral and relu fusion).
struct PendingValues;

class Tensor : public std::enable_shared_from_this<Tensor> {
public:
    // A new, uninitialized buffer (64-byte aligned) laid out as md; shape is the
    // logical shape (md's dims when empty).
    static TensorPtr empty(const memory::desc& md, Shape shape = {});
    // Same desc and logical shape as like, zero-filled (padding included).
    static TensorPtr zeros_like(const Tensor& like);
    static TensorPtr empty_like(const Tensor& like);
    // Wraps data owned by owner (e.g. a NumPy array); no copy.
    static TensorPtr wrap(const memory::desc& md, Shape shape, void* data,
                          std::shared_ptr<void> owner);
    // A copy of a float32 ndarray (any strides) in plain row-major layout.
    static TensorPtr from_numpy(const py::handle& array);

    const Shape& shape() const { return shape_; }
    std::int64_t size() const;
    int ndim() const { return static_cast<int>(shape_.size()); }
    const memory::desc& desc() const { return md_; }
    // The oneDNN memory over the buffer, described by desc(). Like every
    // accessor of the buffer, it first computes deferred values (settle).
    const memory& mem() const {
        settle();
        return mem_;
    }
    // The same buffer described by md (a desc of equal size, e.g. a reshape).
    memory mem_as(const memory::desc& md) const;
    void* data() const {
        settle();
        return data_;
    }

    // Deferred values (the contract is at the top of deferred.hpp, where
    // these members are defined): set by an op that returns this tensor
    // before computing it; computed by settle(), which every access to the
    // buffer calls first.
    // The tensor must be owned by a TensorPtr; it is registered so that
    // settle_all_pending() finds it. The computation must keep its inputs'
    // buffers (owner()) alive, not only their Tensors.
    void defer(std::shared_ptr<PendingValues> pending);
    bool is_pending() const { return has_pending_.load(std::memory_order_acquire); }
    void settle() const {
        if (has_pending_.load(std::memory_order_acquire)) settle_pending();
    }
    // Asks the deferred computation to apply relu to its values as it writes
    // them; false (nothing changed) when there is none or it cannot.
    bool fuse_relu();
    // Shares ownership of the buffer (for views over it).
    const std::shared_ptr<void>& owner() const { return owner_; }
    // Whether this tensor alone holds its buffer: allocated by empty() (not
    // wrapping NumPy memory) and not shared by a view (reshape, raw_view).
    // Only then may an op overwrite it in place when Python says nothing
    // else refers to the Tensor object.
    bool owns_buffer_exclusively() const {
        return allocated_ && owner_ && owner_.use_count() == 1 && data_ == owner_.get();
    }
    memory::data_type dtype() const { return md_.get_data_type(); }
    // Bytes of the physical buffer, padding of blocked layouts included.
    std::size_t nbytes() const { return md_.get_size(); }
    // Plain dense row-major ("abcd"): the NumPy order of the desc's dims.
    bool is_plain() const;
    // Blocked layouts whose padded dims exceed the dims.
    bool has_padding() const;
    // Readable layout: "abcd", "acdb", "aBcd16b", "Acdb64a", ...
    std::string format() const;
    bool same_layout(const Tensor& other) const { return md_ == other.md_; }

    // A new tensor with this one's values laid out as md (md's dims may be a
    // reshape of this tensor's, as for grouped weights). Counted as a reorder.
    TensorPtr reordered(const memory::desc& md) const;
    // This tensor, itself, re-laid out as md: the buffer is replaced, identity
    // kept (used once for parameters, so that later calls hit the fast path).
    void reorder_inplace(const memory::desc& md);
    // Writes src's values (any layout or a float32 ndarray) into this buffer.
    void copy_from(const Tensor& src);
    // A new C-contiguous ndarray in the logical shape.
    py::array to_numpy() const;
    // Rewrites zeros into the padding of a blocked layout (oneDNN relies on it).
    void zero_padding();

private:
    Tensor(const memory::desc& md, Shape shape, void* data, std::shared_ptr<void> owner);

    Shape shape_;
    memory::desc md_;
    void* data_ = nullptr;
    std::shared_ptr<void> owner_;  // keeps the buffer alive (also for raw views)
    memory mem_;
    bool allocated_ = false;  // the buffer came from empty() (the pool)
    // Deferred values: pending_ is guarded by pending_mutex_; has_pending_
    // lets every access skip the lock once they are computed.
    void settle_pending() const;
    mutable std::mutex pending_mutex_;
    mutable std::atomic<bool> has_pending_{false};
    mutable std::shared_ptr<PendingValues> pending_;

    friend py::array raw_view(const TensorPtr& t);
};

// -- helpers for the op files -------------------------------------------------

// Row-major dense f32 desc of dims.
memory::desc plain_desc(const memory::dims& dims,
                        memory::data_type dt = memory::data_type::f32);
// Dense desc of dims whose axes lie in memory in the order of `order`
// ("acdb" = NHWC for 4-D). Only plain letter strings.
memory::desc permuted_desc(const memory::dims& dims, const std::string& order);
// A readable key of everything a desc says (dims, type, strides, blocks).
std::string desc_key(const memory::desc& md);
std::string format_of(const memory::desc& md);
std::string shape_str(const Shape& shape);
memory::dims to_dims(const Shape& shape);

// obj as a Tensor: a Tensor as it is, a float32 ndarray wrapped without a copy
// (any positive strides; others are copied once). TypeError naming fn and arg
// for anything else.
TensorPtr as_tensor(const char* fn, const char* arg, const py::handle& obj);
// True for Tensor objects.
bool is_tensor(const py::handle& obj);
// An accumulator argument (a kernel adds its result into it in place): None
// gives nullptr; else a Tensor, or a writeable float32 ndarray, of exactly
// `shape`, dense row-major (plain). ValueError naming fn and arg otherwise.
TensorPtr accumulator_arg(const char* fn, const char* arg, const py::handle& obj,
                          const Shape& shape);

// t laid out as want: t itself when its desc is want (or a reshape view of it),
// else a reordered copy (counted).
TensorPtr in_layout(const TensorPtr& t, const memory::desc& want);
// The memory to pass for t where a primitive wants `want` (see in_layout; the
// caller keeps the returned Tensor alive during execution).
memory arg_memory(const TensorPtr& t, const memory::desc& want, std::vector<TensorPtr>& keep);

// The memory desc a (cached) primitive expects for `what` (e.g.
// dnnl::query::src_md, weights_md, dst_md, diff_dst_md, workspace_md); a zero
// desc when it has none.
memory::desc query_md(const dnnl::primitive& primitive, dnnl::query what, int index = 0);

// Runs a primitive (created with op_attr()) on the calling thread's stream,
// with scratch memory of this call's own: with the GIL released / from a
// thread that does not hold it / from either.
void execute_here(const dnnl::primitive& primitive, std::unordered_map<int, memory> args);
void execute(const dnnl::primitive& primitive, const std::unordered_map<int, memory>& args);
// The same from a thread that may or may not hold the GIL (deferred values
// are computed wherever they are first read).
void execute_any_gil(const dnnl::primitive& primitive,
                     const std::unordered_map<int, memory>& args);
// Reorders src into dst (cached reorder primitive), counted in reorder_stats().
void reorder_memory(const memory& src, const memory& dst);

// Freed Tensor buffers of 128 KiB and more, kept by size for the next Tensor
// of that size (a training step allocates the same sizes every iteration):
// fresh large buffers cost a page fault per page on first touch, which on
// this kind of machine is as slow as the memory-bound kernels themselves.
// Thread-safe; bounded by a byte limit (what does not fit is freed) and, for
// huge buffers (>= 4 MiB, most of a step's memory), by their high-water
// mark: huge buffers in use plus cached never exceed the most ever in use at
// once, so the pool does not raise the peak memory (cached huge buffers of
// other sizes are let go before a fresh one is mapped).
class BufferPool {
public:
    // glibc maps blocks from 128 KiB on (its default mmap threshold) and
    // unmaps them on free: pooling from there on keeps them resident.
    static constexpr std::size_t kPooledMin = std::size_t{1} << 17;  // 128 KiB
    static constexpr std::size_t kHugeMin = std::size_t{1} << 22;    // 4 MiB
    static constexpr std::size_t kHuge = std::size_t{1} << 21;       // 2 MiB pages
    static constexpr std::size_t kPage = 4096;
    static constexpr std::size_t kSlackDiv = 8;  // huge buffers reused up to 1/8 larger
    // Cached plus live huge buffers may exceed the most ever live by 1/4
    // before cached ones are evicted.
    static constexpr std::size_t kHeadroomDiv = 4;

    struct Stats {
        std::size_t cached_bytes, cached_buffers, limit_bytes;
        std::uint64_t hits, misses;
        std::size_t live_bytes, peak_live_bytes;  // Tensor buffers in use
        bool peak_bound;
    };

    // The allocation size for a request of `bytes` (the pool's size class).
    static std::size_t round(std::size_t bytes);
    // A new buffer of `rounded` bytes (suitably aligned), or nullptr.
    static void* fresh(std::size_t rounded);
    // Returns a buffer from fresh() to the system.
    static void dispose(void* p, std::size_t rounded);
    // A cached buffer of `rounded` bytes (or somewhat more: then `rounded`
    // is set to its size), or nullptr; on a miss for a huge buffer, cached
    // huge buffers are let go to keep the huge bytes in use plus cached
    // within their high-water mark.
    void* take(std::size_t& rounded);
    // Returns a buffer from fresh()/take(): cached when it fits, else freed.
    void give(void* p, std::size_t rounded);
    void set_limit(std::size_t bytes);
    void release();
    Stats stats();
    // Restarts the peak of live bytes from the bytes live now.
    void reset_peak();
    // On (default): huge buffers are reused up to 1/8 larger and bounded by
    // their high-water mark. Off: reused up to twice as large, never let go
    // (fewer fresh pages per step, a higher peak).
    void set_peak_bound(bool on);
    // Bookkeeping of the bytes held by live Tensor buffers (all sizes).
    void note_alloc(std::size_t rounded);
    void note_free(std::size_t rounded);

private:
    void trim_locked();
    // Lets go of cached huge buffers, the largest first, until `bytes` are
    // freed or none is cached.
    void evict_locked(std::size_t bytes);

    std::mutex mutex_;
    std::map<std::size_t, std::vector<void*>> free_;
    std::size_t cached_ = 0;
    // Bytes of huge buffers (>= kHugeMin) cached, in use, and the most ever
    // in use at once (the bound of in use plus cached).
    std::size_t cached_huge_ = 0, live_huge_ = 0, high_water_ = 0;
    bool bound_ = true;
    std::size_t limit_ = std::size_t{4} << 30;
    std::uint64_t hits_ = 0, misses_ = 0;
    std::atomic<std::size_t> live_{0}, peak_live_{0};
};
BufferPool& buffer_pool();
// A buffer of at least `bytes` (64-byte aligned) from buffer_pool(), given
// back to it when the last owner lets go; std::bad_alloc when none can be had.
std::shared_ptr<void> pooled_buffer(std::size_t bytes);

struct ReorderCounters {
    std::atomic<std::uint64_t> count{0};
    std::atomic<std::uint64_t> bytes{0};
};
ReorderCounters& reorder_counters();

py::array raw_view(const TensorPtr& t);

void register_tensor(py::module_& m);

}  // namespace cpuframe
