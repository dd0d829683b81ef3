#include "tensor.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <memory>
#include <vector>
#include <utility>

#include "array_utils.hpp"
#include "deferred.hpp"
#include "engine.hpp"
#include "primitive_cache.hpp"
#include "threads.hpp"

namespace cpuframe {

namespace {

constexpr std::size_t alignment = 64;

// Keeps a Python object alive from C++; releasing it takes the GIL, so the last
// reference may drop anywhere.
std::shared_ptr<void> hold_python(const py::handle& obj) {
    auto* held = new py::object(py::reinterpret_borrow<py::object>(obj));
    return std::shared_ptr<void>(held, [](void* p) {
        py::gil_scoped_acquire gil;
        delete static_cast<py::object*>(p);
    });
}

void copy_bytes(void* dst, const void* src, std::size_t n) {
    if (n >= (1u << 16)) {
        py::gil_scoped_release release;
        std::memcpy(dst, src, n);
    } else {
        std::memcpy(dst, src, n);
    }
}

bool is_native_float32(const py::dtype& dt) {
    // PyArray_EquivTypes: also false for byte-swapped float32. (Reading the
    // descriptor's fields directly breaks on NumPy 2 with older pybind11.)
    return dt.equal(py::dtype::of<float>());
}

std::string type_name(const py::handle& obj) {
    return py::str(py::type::handle_of(obj).attr("__name__"));
}

}  // namespace

py::dtype numpy_dtype(memory::data_type dt) {
    // Each made once (the GIL held, as by every caller) and never destroyed:
    // the small-work path reads mdarray.dtype per op, and making a NumPy
    // dtype costs ~0.4 us.
    static const py::dtype* const f32 = new py::dtype("float32");
    static const py::dtype* const s32 = new py::dtype("int32");
    static const py::dtype* const s8 = new py::dtype("int8");
    static const py::dtype* const u8 = new py::dtype("uint8");
    static const py::dtype* const f16 = new py::dtype("float16");
    static const py::dtype* const other = new py::dtype("void");
    switch (dt) {
        case memory::data_type::f32: return *f32;
        case memory::data_type::s32: return *s32;
        case memory::data_type::s8: return *s8;
        case memory::data_type::u8: return *u8;
        case memory::data_type::f16: return *f16;
        // NumPy has no bfloat16: a bf16 tensor's logical dtype is float32
        // (its values convert exactly); storage_dtype says 'bfloat16'.
        case memory::data_type::bf16: return *f32;
        default: return *other;
    }
}

namespace {

memory::dims dense_strides(const memory::dims& dims) {
    memory::dims strides(dims.size(), 1);
    for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
        strides[i] = strides[i + 1] * std::max<memory::dim>(dims[i + 1], 1);
    return strides;
}

}  // namespace

// -- construction -------------------------------------------------------------

Tensor::Tensor(const memory::desc& md, Shape shape, void* data, std::shared_ptr<void> owner)
    : shape_(std::move(shape)), md_(md), data_(data), owner_(std::move(owner)) {}

void Tensor::make_memory_object() const {
    // (no Python inside: a plain lock, with or without the GIL)
    std::lock_guard<std::mutex> lock(mem_mutex_);
    if (mem_made_.load(std::memory_order_relaxed)) return;
    mem_ = memory(md_, cpu_engine(), data_);
    mem_made_.store(true, std::memory_order_release);
}

TensorPtr Tensor::empty(const memory::desc& md, Shape shape) {
    if (shape.empty() && md.get_ndims() > 0) {
        const memory::dims d = md.get_dims();
        shape.assign(d.begin(), d.end());
    }
    std::shared_ptr<void> buf;
    try {
        buf = pooled_buffer(md.get_size());
    } catch (const std::bad_alloc&) {
        throw OutOfMemory("could not allocate " + bytes_str(md.get_size()) +
                          " for an array of shape " + shape_str(shape) + " (layout " +
                          format_of(md) + ")");
    }
    void* data = buf.get();
    TensorPtr t(new Tensor(md, std::move(shape), data, std::move(buf)));
    t->allocated_ = true;
    return t;
}

TensorPtr Tensor::empty_like(const Tensor& like) { return empty(like.md_, like.shape_); }

TensorPtr Tensor::zeros_like(const Tensor& like) {
    TensorPtr t = empty(like.md_, like.shape_);
    std::memset(t->data_, 0, t->nbytes());
    return t;
}

TensorPtr Tensor::wrap(const memory::desc& md, Shape shape, void* data,
                       std::shared_ptr<void> owner) {
    return TensorPtr(new Tensor(md, std::move(shape), data, std::move(owner)));
}

TensorPtr Tensor::from_numpy(const py::handle& array) {
    TensorPtr view = as_tensor("Tensor.from_numpy", "a", array);
    TensorPtr t = empty(plain_desc(view->md_.get_dims()), view->shape_);
    t->copy_from(*view);
    return t;
}

// -- queries --------------------------------------------------------------------

std::int64_t Tensor::size() const {
    return std::accumulate(shape_.begin(), shape_.end(), std::int64_t{1},
                           std::multiplies<std::int64_t>());
}

memory Tensor::mem_as(const memory::desc& md) const {
    settle();
    if (md == md_) return memory_object();
    return memory(md, cpu_engine(), data_);
}

bool Tensor::is_plain() const {
    int known = plain_.load(std::memory_order_acquire);
    if (known < 0) {
        known = md_ == plain_desc(md_.get_dims(), md_.get_data_type()) ? 1 : 0;
        plain_.store(known, std::memory_order_release);
    }
    return known == 1;
}

bool Tensor::has_padding() const { return md_.get_padded_dims() != md_.get_dims(); }

std::string Tensor::format() const { return format_of(md_); }

// -- layout changes -------------------------------------------------------------

TensorPtr Tensor::reordered(const memory::desc& md) const {
    TensorPtr dst = empty(md, shape_);
    dst->copy_from(*this);
    return dst;
}

void Tensor::reorder_inplace(const memory::desc& md) {
    if (md == md_) return;
    // Two threads making their first call with the same parameter may both
    // get here: one re-lays it out, the other then finds it done. A call
    // already running on the old buffer keeps it alive (arg_memory pins it).
    static std::mutex relayout;
    NoGilLock lock(relayout, true);
    if (md == md_) return;
    touch();
    settle();
    TensorPtr t = reordered(md);
    memory relaid = t->memory_object();
    // (one section with make_memory_object: a memory made meanwhile pairs
    // either the old desc and buffer or the new ones, never one of each)
    std::lock_guard<std::mutex> made(mem_mutex_);
    md_ = t->md_;
    plain_.store(-1, std::memory_order_release);
    data_ = t->data_;
    owner_ = t->owner_;
    mem_ = std::move(relaid);
    mem_made_.store(true, std::memory_order_release);
    allocated_ = true;
}

TensorPtr Tensor::converted_for(const memory::desc& md, int slot) {
    if (slot < 0 || slot >= kConvertedSlots) {
        throw std::logic_error("cpuframe internal error: converted_for slot out of range");
    }
    if (!owns_buffer_exclusively()) return reordered(md);
    NoGilLock lock(converted_mutex_, true);
    const std::uint64_t v = version_.load(std::memory_order_acquire);
    Converted& kept = converted_[slot];
    if (kept.copy && kept.copy->desc() == md) {
        if (kept.version == v) return kept.copy;
        if (kept.copy.use_count() == 1 && kept.copy->owns_buffer_exclusively()) {
            // No call is reading the old copy: rewrite it in place rather
            // than hold two copies at once (peak memory).
            kept.copy->copy_from(*this);
            kept.version = v;
            return kept.copy;
        }
    }
    TensorPtr c = reordered(md);
    kept.copy = c;
    kept.version = v;
    return c;
}

std::optional<bool> Tensor::known_within(float low, float high, std::uint64_t version) const {
    if (!owns_buffer_exclusively()) return std::nullopt;
    std::lock_guard<std::mutex> lock(within_mutex_);
    if (within_ && within_->version == version && within_->low == low && within_->high == high)
        return within_->result;
    return std::nullopt;
}

void Tensor::remember_within(float low, float high, std::uint64_t version, bool result) {
    if (!owns_buffer_exclusively()) return;
    std::lock_guard<std::mutex> lock(within_mutex_);
    within_ = WithinResult{low, high, version, result};
}

void Tensor::copy_from(const Tensor& src) {
    touch();
    settle_all_pending();  // this buffer may be the input of one
    if (src.size() != size()) {
        throw py::value_error("Tensor.copy_from: expected a source of shape " +
                              shape_str(shape_) + ", got " + shape_str(src.shape_));
    }
    if (src.md_ == md_) {
        if (src.data_ != data_) copy_bytes(data_, src.data_, nbytes());
        return;
    }
    const memory::dims dims = md_.get_dims();
    memory::desc view = src.md_.get_dims() == dims ? src.md_ : src.md_.reshape(dims, true);
    if (is_empty_md(view)) {
        // src's layout cannot be viewed with our dims (e.g. blocked grouped
        // weights): go through its plain layout, which any reshape can view.
        TensorPtr plain = src.reordered(plain_desc(src.md_.get_dims(), src.dtype()));
        copy_from(*plain);
        return;
    }
    if (view == md_) {
        copy_bytes(data_, src.data_, nbytes());
        return;
    }
    reorder_memory(memory(view, cpu_engine(), src.data_), memory_object());
}

TensorPtr Tensor::as_data_type(memory::data_type dt) const {
    if (dtype() == dt) return std::const_pointer_cast<Tensor>(shared_from_this());
    return reordered(with_data_type(md_, dt));
}

py::array Tensor::to_numpy() const {
    if (dtype() != memory::data_type::f32 && dtype() != memory::data_type::bf16) {
        throw py::type_error("Tensor.to_numpy: only float32 and bfloat16 tensors convert to "
                             "NumPy, got " + std::string(py::str(numpy_dtype(dtype()))));
    }
    py::array_t<float> out(std::vector<py::ssize_t>(shape_.begin(), shape_.end()));
    settle();
    const memory::desc plain = plain_desc(md_.get_dims());
    if (md_ == plain) {
        copy_bytes(out.mutable_data(), data_, static_cast<std::size_t>(size()) * sizeof(float));
    } else {
        guard_dnnl("Tensor.to_numpy", [&] { return "tensor " + shape_str(shape_); }, [&] {
            reorder_memory(memory_object(), memory(plain, cpu_engine(), out.mutable_data()));
        });
    }
    return out;
}

namespace {

// The padding of a blocked layout as runs (first element, count) of its
// physical buffer, sorted and merged.
using PaddingRuns = std::vector<std::pair<std::size_t, std::size_t>>;

PaddingRuns padding_runs(const memory::desc& md) {
    // Visit, per padded axis, the slab of indices beyond the logical size.
    const memory::dims dims = md.get_dims(), padded = md.get_padded_dims();
    const memory::dims strides = md.get_strides(), blks = md.get_inner_blks(),
                       idxs = md.get_inner_idxs();
    const int n = md.get_ndims();
    memory::dims block(n, 1);  // product of a dim's inner blocks
    for (std::size_t k = 0; k < blks.size(); ++k) block[idxs[k]] *= blks[k];
    auto offset = [&](const memory::dims& idx) {
        memory::dim off = 0;
        for (int d = 0; d < n; ++d) off += idx[d] / block[d] * strides[d];
        memory::dim inner = 0;
        for (std::size_t k = 0; k < blks.size(); ++k) {
            const int d = static_cast<int>(idxs[k]);
            memory::dim below = 1;  // blocks of dim d nested inside block k
            for (std::size_t j = k + 1; j < blks.size(); ++j)
                if (idxs[j] == d) below *= blks[j];
            inner = inner * blks[k] + (idx[d] % block[d]) / below % blks[k];
        }
        return off + inner;
    };
    std::vector<std::size_t> offsets;
    for (int d = 0; d < n; ++d) {
        if (padded[d] == dims[d]) continue;
        memory::dims lo(n, 0), hi = padded;
        lo[d] = dims[d];
        memory::dims idx = lo;
        while (true) {
            offsets.push_back(static_cast<std::size_t>(offset(idx)));
            int a = n - 1;
            while (a >= 0 && ++idx[a] == hi[a]) {
                idx[a] = lo[a];
                --a;
            }
            if (a < 0) break;
        }
    }
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    PaddingRuns runs;
    for (std::size_t off : offsets) {
        if (!runs.empty() && runs.back().first + runs.back().second == off) {
            ++runs.back().second;
        } else {
            runs.emplace_back(off, 1);
        }
    }
    return runs;
}

// The runs of a layout, computed once per layout (a bounded cache: the
// layouts of a model's weights and activations are few).
std::shared_ptr<const PaddingRuns> cached_padding_runs(const memory::desc& md) {
    static std::mutex mutex;
    static std::unordered_map<std::string, std::shared_ptr<const PaddingRuns>> cache;
    const std::string key = desc_key(md);
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = cache.find(key);
        if (it != cache.end()) return it->second;
    }
    auto runs = std::make_shared<const PaddingRuns>(padding_runs(md));
    std::lock_guard<std::mutex> lock(mutex);
    if (cache.size() >= 4096) cache.clear();
    cache.emplace(key, runs);
    return runs;
}

}  // namespace

void Tensor::zero_padding() {
    if (!has_padding() || md_.get_format_kind() != memory::format_kind::blocked) return;
    touch();
    settle();
    // oneDNN primitives assume zeros there; element-wise NumPy updates on the
    // raw buffer (x + 1, x / y) may have written something else.
    const std::size_t elem = memory::data_type_size(md_.get_data_type());
    char* base = static_cast<char*>(data_);
    for (const auto& run : *cached_padding_runs(md_)) {
        std::memset(base + run.first * elem, 0, run.second * elem);
    }
}

py::array raw_view(const TensorPtr& t) {
    if (t->dtype() != memory::data_type::f32) {
        throw py::type_error("Tensor.raw_view: only float32 tensors have a float32 view");
    }
    // A raw view may be written through: nothing deferred may read the
    // buffer later (settle_all_pending covers t itself).
    settle_all_pending();
    t->settle();
    t->touch();  // (a converted copy of t made earlier is stale from now on)
    auto* keep = new std::shared_ptr<void>(t->owner_);
    py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
    const py::ssize_t n = static_cast<py::ssize_t>(t->nbytes() / sizeof(float));
    return py::array_t<float>({n}, {static_cast<py::ssize_t>(sizeof(float))},
                              static_cast<float*>(t->data_), base);
}

namespace {

// An ndarray of t's logical shape over its plain float32 buffer, made with
// NumPy's C API in one call (py::array_t's constructor costs ~2x: it copies
// shape and strides into vectors and checks them). t is plain float32 and
// settled; the array keeps the buffer alive through its base capsule.
py::object make_plain_view(const Tensor& t, const std::shared_ptr<void>& owner, void* data) {
    auto* keep = new std::shared_ptr<void>(owner);
    py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
    const auto& shape = t.shape();
    const int nd = static_cast<int>(shape.size());
    constexpr int kMaxDims = 32;  // NumPy's own limit (NPY_MAXDIMS)
    if (nd > kMaxDims) throw py::value_error("plain_view: more than 32 dimensions");
    Py_intptr_t dims[kMaxDims];
    Py_intptr_t strides[kMaxDims];
    Py_intptr_t step = static_cast<Py_intptr_t>(sizeof(float));
    for (int i = nd; i-- > 0;) {
        dims[i] = static_cast<Py_intptr_t>(shape[static_cast<std::size_t>(i)]);
        strides[i] = step;
        step *= std::max<Py_intptr_t>(dims[i], 1);
    }
    auto& api = py::detail::npy_api::get();
    PyObject* descr = api.PyArray_DescrFromType_(py::detail::npy_api::NPY_FLOAT_);
    if (!descr) throw py::error_already_set();
    // (NewFromDescr steals descr; writeable and aligned, as the buffer is)
    PyObject* arr = api.PyArray_NewFromDescr_(
        api.PyArray_Type_, descr, nd, dims, strides, data,
        py::detail::npy_api::NPY_ARRAY_WRITEABLE_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_,
        nullptr);
    if (!arr) throw py::error_already_set();
    py::object result = py::reinterpret_steal<py::object>(arr);
    if (api.PyArray_SetBaseObject_(arr, base.release().ptr()) != 0) throw py::error_already_set();
    return result;
}

}  // namespace

py::object plain_view(const TensorPtr& t) {
    // The NumPy face of a plain float32 tensor in one call (the small-work
    // path reads every such mdarray through it); None for other layouts
    // and storage types, which need a copy.
    if (t->dtype() != memory::data_type::f32 || !t->is_plain()) return py::none();
    settle_all_pending();
    t->settle();
    t->touch();
    return make_plain_view(*t, t->owner_, t->data_);
}

py::object plain_views(const py::tuple& arrays) {
    // The inputs of an op that takes the NumPy path on the Intel64 device,
    // in one call: ndarrays as they are, plain float32 tensors as views of
    // their buffers. None when some entry is anything else (a laid-out or
    // bfloat16 tensor needs a copy; other types are the caller's to read).
    const std::size_t n = arrays.size();
    auto& api = py::detail::npy_api::get();
    bool settled = false;
    for (std::size_t i = 0; i < n; ++i) {
        PyObject* x = PyTuple_GET_ITEM(arrays.ptr(), static_cast<Py_ssize_t>(i));
        if (api.PyArray_Check_(x)) continue;
        const TensorPtr* held = tensor_holder(x);
        if (held == nullptr) return py::none();
        const Tensor& t = **held;
        if (t.dtype() != memory::data_type::f32 || !t.is_plain()) return py::none();
    }
    py::tuple out(n);
    for (std::size_t i = 0; i < n; ++i) {
        py::handle x(PyTuple_GET_ITEM(arrays.ptr(), static_cast<Py_ssize_t>(i)));
        if (api.PyArray_Check_(x.ptr())) {
            out[i] = x;
            continue;
        }
        const TensorPtr& t = *tensor_holder(x.ptr());  // (checked above)
        if (!settled) {
            settle_all_pending();
            settled = true;
        }
        t->settle();
        t->touch();
        out[i] = make_plain_view(*t, t->owner_, t->data_);
    }
    return std::move(out);
}

// -- helpers ----------------------------------------------------------------------

memory::desc plain_desc(const memory::dims& dims, memory::data_type dt) {
    return memory::desc(dims, dt, dense_strides(dims));
}

memory::desc permuted_desc(const memory::dims& dims, const std::string& order) {
    const std::size_t n = dims.size();
    std::vector<bool> seen(n, false);
    bool ok = order.size() == n;
    for (std::size_t i = 0; ok && i < n; ++i) {
        const int axis = order[i] - 'a';
        ok = axis >= 0 && static_cast<std::size_t>(axis) < n && !seen[axis];
        if (ok) seen[axis] = true;
    }
    if (!ok) {
        throw py::value_error("Tensor.reorder: expected a plain format of " + std::to_string(n) +
                              " distinct letters from 'a' (e.g. 'abcd' or 'acdb'), got '" +
                              order + "'");
    }
    memory::dims strides(n);
    memory::dim stride = 1;
    for (std::size_t i = n; i-- > 0;) {
        const int axis = order[i] - 'a';
        strides[axis] = stride;
        stride *= std::max<memory::dim>(dims[axis], 1);
    }
    return memory::desc(dims, memory::data_type::f32, strides);
}

std::string format_of(const memory::desc& md) {
    switch (md.get_format_kind()) {
        case memory::format_kind::blocked: break;
        case memory::format_kind::any: return "any";
        case memory::format_kind::undef: return "undef";
        default: return "opaque";
    }
    const int n = md.get_ndims();
    const memory::dims strides = md.get_strides();
    const memory::dims blks = md.get_inner_blks();
    const memory::dims idxs = md.get_inner_idxs();
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return strides[a] > strides[b]; });
    std::string s;
    for (int axis : order) {
        const bool blocked = std::find(idxs.begin(), idxs.end(), axis) != idxs.end();
        s += static_cast<char>((blocked ? 'A' : 'a') + axis);
    }
    for (std::size_t i = 0; i < blks.size(); ++i)
        s += std::to_string(blks[i]) + static_cast<char>('a' + idxs[i]);
    return s;
}

std::string desc_key(const memory::desc& md) {
    auto join = [](const memory::dims& v) {
        std::string s;
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (i) s += ',';
            s += std::to_string(v[i]);
        }
        return s;
    };
    std::string s = std::to_string(static_cast<int>(md.get_data_type())) + ":" +
                    join(md.get_dims());
    if (md.get_format_kind() != memory::format_kind::blocked) return s + ":" + format_of(md);
    s += ":s" + join(md.get_strides());
    if (md.get_inner_nblks() > 0) s += ":b" + join(md.get_inner_blks()) + "@" + join(md.get_inner_idxs());
    if (md.get_padded_dims() != md.get_dims()) s += ":p" + join(md.get_padded_dims());
    if (md.get_submemory_offset() != 0) s += ":o" + std::to_string(md.get_submemory_offset());
    return s;
}

std::string shape_str(const Shape& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    if (shape.size() == 1) s += ",";
    return s + ")";
}

memory::dims to_dims(const Shape& shape) { return memory::dims(shape.begin(), shape.end()); }

namespace {
// (both set once at import, the GIL held)
PyTypeObject* g_tensor_type = nullptr;
const py::detail::type_info* g_tensor_tinfo = nullptr;
}  // namespace

void set_tensor_type(PyObject* type) {
    g_tensor_type = reinterpret_cast<PyTypeObject*>(type);
    g_tensor_tinfo = py::detail::get_type_info(typeid(Tensor));
}

const TensorPtr* tensor_holder(PyObject* obj) {
    if (g_tensor_type == nullptr || !PyObject_TypeCheck(obj, g_tensor_type)) return nullptr;
    auto* inst = reinterpret_cast<py::detail::instance*>(obj);
    py::detail::value_and_holder vh;
    if (inst->simple_layout) {
        // One pybind11 base, which the type check says is Tensor (Tensor
        // itself or a Python subclass of it alone): its value and holder are
        // the instance's only ones.
        vh = inst->get_value_and_holder();
    } else {
        // A Python class with several pybind11 bases: Tensor's own slot.
        vh = inst->get_value_and_holder(g_tensor_tinfo, false);
        if (vh.inst == nullptr) return nullptr;
    }
    if (!vh.holder_constructed()) return nullptr;  // (Tensor.__new__ without __init__)
    return &vh.holder<TensorPtr>();
}

bool is_tensor(const py::handle& obj) { return tensor_holder(obj.ptr()) != nullptr; }

TensorPtr accumulator_arg(const char* fn, const char* arg, const py::handle& obj,
                          const Shape& shape) {
    if (obj.is_none()) return nullptr;
    if (py::isinstance<py::array>(obj) && !py::reinterpret_borrow<py::array>(obj).writeable()) {
        throw py::value_error(std::string(fn) + ": expected " + arg +
                              " to be writeable (it accumulates in place)");
    }
    // Not as_tensor: a bfloat16 accumulator converted to a float32 copy would
    // take the sum and drop it.
    TensorPtr t = as_tensor_any(fn, arg, obj);
    t->touch();
    if (t->shape() != shape || !(t->desc() == plain_desc(to_dims(shape)))) {
        throw py::value_error(std::string(fn) + ": expected " + arg + " of shape " +
                              shape_str(shape) + " in plain row-major layout, got " +
                              shape_str(t->shape()) + " in " + format_of(t->desc()));
    }
    return t;
}

memory::desc with_data_type(const memory::desc& md, memory::data_type dt) {
    if (md.get_data_type() == dt) return md;
    if (md.get_format_kind() == memory::format_kind::blocked && md.get_inner_nblks() == 0 &&
        md.get_submemory_offset() == 0 && md.get_padded_dims() == md.get_dims()) {
        return memory::desc(md.get_dims(), dt, md.get_strides());
    }
    return plain_desc(md.get_dims(), dt);
}

memory::data_type compute_dt(std::initializer_list<const TensorPtr*> ts) {
    for (const TensorPtr* t : ts) {
        if (t && *t && (*t)->dtype() == memory::data_type::bf16) return memory::data_type::bf16;
    }
    return memory::data_type::f32;
}

TensorPtr as_tensor(const char* fn, const char* arg, const py::handle& obj) {
    TensorPtr t = as_tensor_any(fn, arg, obj);
    if (t->dtype() == memory::data_type::f32) return t;
    if (t->dtype() != memory::data_type::bf16) {
        throw py::type_error(std::string(fn) + ": expected " + arg +
                             " to be a float32 or bfloat16 Tensor, got " +
                             std::string(py::str(numpy_dtype(t->dtype()))));
    }
    return guard_dnnl(fn, [&] { return std::string(arg) + " " + shape_str(t->shape()); },
                      [&] { return t->as_data_type(memory::data_type::f32); });
}

TensorPtr as_tensor_any(const char* fn, const char* arg, const py::handle& obj) {
    if (const TensorPtr* held = tensor_holder(obj.ptr())) return *held;
    if (!py::isinstance<py::array>(obj)) {
        throw py::type_error(std::string(fn) + ": expected " + arg +
                             " to be a float32 numpy.ndarray or Tensor, got " + type_name(obj));
    }
    auto a = py::reinterpret_borrow<py::array>(obj);
    if (!is_native_float32(a.dtype())) {
        throw py::type_error(std::string(fn) + ": expected " + arg +
                             " to be a float32 array, got " + std::string(py::str(a.dtype())));
    }
    if (a.ndim() > DNNL_MAX_NDIMS) {
        throw py::value_error(std::string(fn) + ": expected " + arg + " with at most " +
                              std::to_string(DNNL_MAX_NDIMS) + " dimensions, got " +
                              std::to_string(a.ndim()));
    }
    Shape shape(a.shape(), a.shape() + a.ndim());
    memory::dims dims = shape.empty() ? memory::dims{1} : to_dims(shape);
    memory::dims strides(dims.size(), 0);
    bool representable =
        (a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
    const memory::dims dense = dense_strides(dims);
    for (py::ssize_t i = 0; representable && i < a.ndim(); ++i) {
        const py::ssize_t st = a.strides(i);
        if (a.shape(i) == 1) {
            strides[i] = dense[i];  // a size-1 axis' stride is never used
        } else if (st > 0 && st % static_cast<py::ssize_t>(sizeof(float)) == 0) {
            strides[i] = st / static_cast<py::ssize_t>(sizeof(float));
        } else {
            representable = false;
        }
    }
    if (a.ndim() == 0) strides = {1};
    if (!representable) {
        a = a.attr("copy")("C").cast<py::array>();
        strides = dense;
    }
    memory::desc md = guard_dnnl(fn, [&] { return std::string(arg) + " " + shape_str(shape); },
                                 [&] { return memory::desc(dims, memory::data_type::f32, strides); });
    const bool plain = strides == dense;
    TensorPtr t = Tensor::wrap(md, std::move(shape), const_cast<void*>(a.data()), hold_python(a));
    // (plain_desc(dims) is this very desc: is_plain() need not compare)
    if (plain) t->plain_.store(1, std::memory_order_release);
    return t;
}

TensorPtr in_layout(const TensorPtr& t, const memory::desc& want) {
    if (t->desc() == want) return t;
    if (t->desc().get_dims() != want.get_dims()) {
        memory::desc view = t->desc().reshape(want.get_dims(), true);
        if (!is_empty_md(view) && view == want) {
            return Tensor::wrap(want, t->shape(), t->data(), t->owner());
        }
    }
    return t->reordered(want);
}

memory arg_memory(const TensorPtr& t, const memory::desc& want, std::vector<TensorPtr>& keep) {
    TensorPtr in = in_layout(t, want);
    // A plain parameter may be re-laid out in place by another thread's call
    // while this one runs (reorder_inplace swaps its buffer): hold on to the
    // buffer itself, not only to the Tensor.
    if (in == t && t->is_plain()) in = Tensor::wrap(t->desc(), t->shape(), t->data(), t->owner());
    keep.push_back(std::move(in));
    return keep.back()->mem();
}

memory::desc query_md(const dnnl::primitive& primitive, dnnl::query what, int index) {
    const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(
        primitive.get_primitive_desc(), dnnl::convert_to_c(what), index);
    if (md == nullptr) return memory::desc();
    dnnl_memory_desc_t clone = nullptr;
    dnnl::error::wrap_c_api(dnnl_memory_desc_clone(&clone, md), "could not clone a memory desc");
    return memory::desc(clone);
}

namespace {

bool user_scratchpad(const dnnl::primitive& primitive) {
    const_dnnl_primitive_attr_t attr = nullptr;
    dnnl_scratchpad_mode_t mode = dnnl_scratchpad_mode_library;
    return dnnl_primitive_desc_get_attr(primitive.get_primitive_desc(), &attr) ==
               dnnl_success &&
           dnnl_primitive_attr_get_scratchpad_mode(attr, &mode) == dnnl_success &&
           mode == dnnl_scratchpad_mode_user;
}

// Below this many bytes of arguments a primitive runs on the calling thread
// alone. Its work then takes microseconds, and an OpenMP team costs more: the
// team's threads sleep between the ops of a small model (the Python around
// each op outlasts their spin), and waking them costs 50-100 us on a 2-vCPU
// VM, more when another process holds a core. Measured on a Zen 3 (2 vCPU,
// benchmarks/overhead): the MNIST MLP step on @intel64 was 1.75x the NumPy
// path's time with the team for every primitive, 1.1x on one thread. Running
// with fewer threads than the primitive was created for is safe: oneDNN
// partitions by the team it gets (or names its team size itself).
constexpr std::size_t kOneThreadBytes = std::size_t{1} << 18;

int threads_for(const std::unordered_map<int, memory>& args) {
    std::size_t bytes = 0;
    for (const auto& arg : args) {
        if (arg.first == DNNL_ARG_SCRATCHPAD) continue;
        bytes += arg.second.get_desc().get_size();
        if (bytes >= kOneThreadBytes) return max_threads();
    }
    return 1;
}

}  // namespace

void execute_here(const dnnl::primitive& primitive, std::unordered_map<int, memory> args) {
    if (!user_scratchpad(primitive)) {
        // A programming error of ours (see op_attr): running it could race.
        throw std::logic_error(
            "cpuframe internal error: a primitive created without op_attr() (a "
            "library-managed scratchpad) cannot run safely from several threads");
    }
    // This call's own scratch memory: two threads running the same cached
    // primitive at once never share it.
    std::shared_ptr<void> scratch;
    const memory::desc sp_md = query_md(primitive, dnnl::query::scratchpad_md);
    if (sp_md.get_size() > 0) {
        scratch = pooled_buffer(sp_md.get_size());
        args[DNNL_ARG_SCRATCHPAD] = memory(sp_md, cpu_engine(), scratch.get());
    }
    ThreadLimit limit(threads_for(args));
    dnnl::stream& stream = cpu_stream();
    primitive.execute(stream, args);
    stream.wait();
}

void execute(const dnnl::primitive& primitive, const std::unordered_map<int, memory>& args) {
    py::gil_scoped_release release;
    execute_here(primitive, args);
}

void execute_any_gil(const dnnl::primitive& primitive,
                     const std::unordered_map<int, memory>& args) {
    if (PyGILState_Check()) {
        execute(primitive, args);
        return;
    }
    execute_here(primitive, args);
}

ReorderCounters& reorder_counters() {
    static ReorderCounters* counters = new ReorderCounters();
    return *counters;
}

void reorder_memory(const memory& src, const memory& dst) {
    const memory::desc src_md = src.get_desc();
    const memory::desc dst_md = dst.get_desc();
    PrimitiveKey key("reorder");
    key.text("src", desc_key(src_md)).text("dst", desc_key(dst_md));
    dnnl::primitive r = PrimitiveCache::global().get_or_create(key, [&] {
        return dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), src_md, cpu_engine(),
                                                           dst_md, op_attr()));
    });
    ReorderCounters& c = reorder_counters();
    c.count.fetch_add(1, std::memory_order_relaxed);
    c.bytes.fetch_add(dst_md.get_size(), std::memory_order_relaxed);
    execute_any_gil(r, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
}

}  // namespace cpuframe
