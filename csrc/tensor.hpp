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
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "pool.hpp"

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
        return memory_object();
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
    // Whether this tensor holds dt, dense row-major in its desc's dims (asked
    // of every argument of the small-work routes, without making a desc).
    // Where the desc's dims are the logical shape (all but grouped
    // convolution weights, whose desc has a groups dim in front) that is
    // in_layout(t, plain_desc(to_dims(shape()), dt)) == t; a grouped weight
    // plain in its 5 dims has the same bytes as its plain logical shape.
    bool plain_as(memory::data_type dt) const { return ndim() > 0 && dtype() == dt && is_plain(); }
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
    // Every write to the buffer that we know of (copy_from, raw_view, an
    // accumulator, an in-place re-layout or overwrite) counts here.
    void touch() { version_.fetch_add(1, std::memory_order_acq_rel); }
    // This tensor's values laid out and typed as md (mixed_bf16: the bf16
    // copy a primitive reads of a float32 master weight). The copy is kept
    // and returned again while the tensor is not written: it is made only
    // for a tensor that owns its buffer with no view (no NumPy array, no
    // other Tensor) sharing it, so every later write goes through touch().
    // One copy is kept per slot: a route that reads a weight in two
    // layouts (L.LSTM's fused step: forward and input gradient) gives each
    // its own slot; every other route uses slot 0.
    static constexpr int kConvertedSlots = 2;
    TensorPtr converted_for(const memory::desc& md, int slot = 0);
    std::uint64_t version() const { return version_.load(std::memory_order_acquire); }
    // all_within(low, high) of this tensor as computed at `version`, kept
    // while nothing writes it (same condition as converted_for); empty when
    // not known.
    std::optional<bool> known_within(float low, float high, std::uint64_t version) const;
    void remember_within(float low, float high, std::uint64_t version, bool result);
    // A new C-contiguous float32 ndarray in the logical shape (a bfloat16
    // tensor converts exactly).
    py::array to_numpy() const;
    // This tensor's values stored as dt: itself when it already is, else a
    // converted copy in the same layout when the layout has no inner blocks,
    // in plain layout otherwise (counted as a reorder).
    TensorPtr as_data_type(memory::data_type dt) const;
    // Rewrites zeros into the padding of a blocked layout (oneDNN relies on it).
    void zero_padding();

private:
    Tensor(const memory::desc& md, Shape shape, void* data, std::shared_ptr<void> owner);

    Shape shape_;
    memory::desc md_;
    void* data_ = nullptr;
    std::shared_ptr<void> owner_;  // keeps the buffer alive (also for raw views)
    // The oneDNN memory over the buffer, made on first ask: creating one costs
    // ~3K instructions, and most Tensors of the small-work path (a NumPy
    // argument wrapped for one call, an output read through data()) are
    // never handed to a primitive.
    const memory& memory_object() const {
        if (!mem_made_.load(std::memory_order_acquire)) make_memory_object();
        return mem_;
    }
    void make_memory_object() const;
    mutable memory mem_;
    mutable std::atomic<bool> mem_made_{false};
    mutable std::mutex mem_mutex_;  // guards making mem_
    bool allocated_ = false;  // the buffer came from empty() (the pool)
    std::atomic<std::uint64_t> version_{0};
    // is_plain(), computed on first ask (-1: not yet; a relayout resets it):
    // the small-work path asks it of every device input.
    mutable std::atomic<int> plain_{-1};
    std::mutex converted_mutex_;  // guards converted_
    struct Converted {
        TensorPtr copy;
        std::uint64_t version = 0;
    };
    Converted converted_[kConvertedSlots];
    struct WithinResult {
        float low, high;
        std::uint64_t version;
        bool result;
    };
    mutable std::mutex within_mutex_;
    std::optional<WithinResult> within_;
    // Deferred values: pending_ is guarded by pending_mutex_; has_pending_
    // lets every access skip the lock once they are computed.
    void settle_pending() const;
    mutable std::mutex pending_mutex_;
    mutable std::atomic<bool> has_pending_{false};
    mutable std::shared_ptr<PendingValues> pending_;

    friend TensorPtr as_tensor_any(const char* fn, const char* arg, const py::handle& obj);
    friend py::array raw_view(const TensorPtr& t);
    friend py::object plain_view(const TensorPtr& t);
    friend py::object plain_views(const py::tuple& arrays);
};

// -- helpers for the op files -------------------------------------------------

// Whether md is empty: what reshape/submemory_desc with allow_empty give when
// they cannot (querying such a desc throws, so test this first).
inline bool is_empty_md(const memory::desc& md) {
    return md.get(true) == nullptr || md.get_ndims() == 0;
}
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
// The NumPy dtype of a oneDNN data type (void for types NumPy lacks).
py::dtype numpy_dtype(memory::data_type dt);
memory::dims to_dims(const Shape& shape);

// obj as a float32 Tensor: a float32 Tensor as it is, a bfloat16 Tensor
// converted (a copy), a float32 ndarray wrapped without a copy (any positive
// strides; others are copied once). TypeError naming fn and arg for anything
// else. Every route whose kernels read float32 takes its inputs through it.
TensorPtr as_tensor(const char* fn, const char* arg, const py::handle& obj);
// The same for the routes that compute in bfloat16 too: a Tensor as it is,
// whatever its data type (float32 or bfloat16).
TensorPtr as_tensor_any(const char* fn, const char* arg, const py::handle& obj);
// The data type a bf16-capable route computes in: bf16 when any of the given
// (non-null) tensors is bf16, else f32 (mixed_bf16 mode hands the routes
// bf16 activations; a float32 weight is converted by the primitive's reorder).
memory::data_type compute_dt(std::initializer_list<const TensorPtr*> ts);
// A desc with md's dims and strides and data type dt, when md has no inner
// blocks; else the plain desc of md's dims with dt.
memory::desc with_data_type(const memory::desc& md, memory::data_type dt);
// True for Tensor objects.
bool is_tensor(const py::handle& obj);
// The holder of obj's Tensor when obj is a Tensor (or an instance of a Python
// subclass) whose holder is constructed, else nullptr; the GIL held. Reads the
// pybind11 instance directly: py::isinstance<Tensor> and a cast each look the
// type up in pybind11's registry (~300 instructions), paid per argument of
// every route and per attribute read of a device array.
const TensorPtr* tensor_holder(PyObject* obj);
// Records the Python type of Tensor for tensor_holder (once, when registered).
void set_tensor_type(PyObject* type);
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
// Reorders src into dst (cached reorder primitive), counted in reorder_stats();
// from a thread with or without the GIL.
void reorder_memory(const memory& src, const memory& dst);

struct ReorderCounters {
    std::atomic<std::uint64_t> count{0};
    std::atomic<std::uint64_t> bytes{0};
};
ReorderCounters& reorder_counters();

py::array raw_view(const TensorPtr& t);
py::object plain_view(const TensorPtr& t);
// plain_view of every plain float32 tensor of a tuple, ndarrays as they are;
// None when some entry is neither.
py::object plain_views(const py::tuple& arrays);

void register_tensor(py::module_& m);

}  // namespace cpuframe
