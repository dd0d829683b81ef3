// Element-wise ops: ReLU (forward and gradient), add_f32 and the range checks
// of the inputs of routes (has_nan, all_within). Leaky ReLU is in activation.cpp.
//
// Inputs are native Tensors (or float32 ndarrays) read as their flat physical
// buffer, so an element-wise op does not care about shape or layout. ReLU and
// its gradient (relu, relu_grad) are loops of ours: oneDNN's relu kernel turns
// NaN into 0 where the NumPy path keeps it; the ops are memory bound, and the
// loops are as fast as the primitive.
#include <limits>
#include <cstdint>
#include <cstring>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "array_utils.hpp"
#include "deferred.hpp"
#include "ops.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using dnnl::memory;

// -- Tensor versions: any layout, computed on the flat physical buffer --------

// t itself when its buffer is dense (plain or blocked), else a plain copy;
// element-wise ops then read the buffer as one flat array.
TensorPtr dense(const TensorPtr& t) {
    const memory::desc& md = t->desc();
    if (md.get_inner_nblks() > 0 || t->is_plain()) return t;
    // A permutation (e.g. NHWC) is dense when its size equals the element count;
    // strided NumPy views are not.
    if (md.get_size() ==
        static_cast<std::size_t>(t->size()) * memory::data_type_size(md.get_data_type()))
        return t;
    return t->reordered(plain_desc(md.get_dims(), md.get_data_type()));
}

// bfloat16 values (mixed_bf16 activations) as their bits. relu keeps NaN
// (either sign) and positive values and writes +0 for the rest, as the
// float32 kernel does; its gradient passes gy where y > 0.
// +inf's and -inf's bits as int16 (0x7f80, 0xff80).
constexpr std::int16_t bf16_inf = 0x7f80, bf16_neg_inf = -128;

void relu_flat_bf16(const std::uint16_t* x, std::uint16_t* y, std::int64_t n) {
    py::gil_scoped_release release;
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for simd schedule(static) if (n >= (std::int64_t{1} << 16))
#endif
    for (std::int64_t i = 0; i < n; ++i) {
        // Kept: positive (as int16: > 0) or a negative NaN (as int16:
        // -127..-1, above -inf's -128); else +0. One compare, branch-free.
        const std::int16_t s = static_cast<std::int16_t>(x[i]);
        const std::uint16_t keep =
            static_cast<std::uint16_t>(-static_cast<int>((s > bf16_neg_inf) & (s != 0)));
        y[i] = static_cast<std::uint16_t>(x[i] & keep);
    }
}

void relu_grad_flat_bf16(const std::uint16_t* y, const std::uint16_t* gy, std::uint16_t* gx,
                         std::int64_t n) {
    py::gil_scoped_release release;
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for simd schedule(static) if (n >= (std::int64_t{1} << 16))
#endif
    for (std::int64_t i = 0; i < n; ++i) {
        // y > 0 as int16 compares (sign clear, non-zero, at most +inf):
        // branch-free, so that the loop vectorizes.
        const std::int16_t b = static_cast<std::int16_t>(y[i]);
        const std::uint16_t keep =
            static_cast<std::uint16_t>(-static_cast<int>((b > 0) & (b <= bf16_inf)));
        gx[i] = static_cast<std::uint16_t>(gy[i] & keep);
    }
}

bool is_bf16(const TensorPtr& t) { return t->dtype() == memory::data_type::bf16; }

// The range check of a bf16 tensor (a mixed_bf16 activation into max
// pooling): its values are the float32s with these 16 high bits, checked
// as such rather than on a float32 copy of the tensor.
bool all_within_bf16(const std::uint16_t* p, std::int64_t n, float low, float high) {
    py::gil_scoped_release release;
    int bad = 0;
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for simd reduction(|: bad) schedule(static) if (n >= (std::int64_t{1} << 20))
#endif
    for (std::int64_t i = 0; i < n; ++i) {
        const std::uint32_t bits = static_cast<std::uint32_t>(p[i]) << 16;
        float v;
        std::memcpy(&v, &bits, sizeof v);
        bad |= !(v >= low && v <= high);
    }
    return bad == 0;
}

// oneDNN's eltwise_relu maps NaN to 0 where the NumPy path (maximum) keeps
// it; relu_values keeps it, at the same memory traffic (memory bound).
void relu_flat(const float* x, float* y, std::int64_t n) {
    py::gil_scoped_release release;
    relu_values(x, y, n);
}

// gx = gy where y > 0, else 0 (gx may be gy). oneDNN's relu backward passes
// gy through where y is NaN; the NumPy path's mask (y > 0) gives 0 there.
void relu_grad_flat(const float* y, const float* gy, float* gx, std::int64_t n) {
    py::gil_scoped_release release;
    // Branch-free on the bits (y > 0: int32 in (0, +inf's bits]), so that
    // it vectorizes (the float select did not: 28.6 ms for 12.8M values, now 3.8).
    using bits = std::int32_t __attribute__((may_alias));
    const bits* ys = reinterpret_cast<const bits*>(y);
    const bits* gs = reinterpret_cast<const bits*>(gy);
    bits* out = reinterpret_cast<bits*>(gx);
    constexpr std::int32_t pos_inf = 0x7f800000;
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for simd schedule(static) if (n >= (std::int64_t{1} << 16))
#endif
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int32_t s = ys[i];
        out[i] = gs[i] & -static_cast<std::int32_t>((s > 0) & (s <= pos_inf));
    }
}

TensorPtr relu_tensor(const py::object& x_obj) {
    constexpr const char* fn = "relu";
    TensorPtr x = dense(as_tensor_any(fn, "x", x_obj));  // f32, or bf16 (mixed_bf16)
    TensorPtr y = Tensor::empty(x->desc(), x->shape());
    if (x->size() == 0) return y;
    if (is_bf16(x)) {
        relu_flat_bf16(static_cast<const std::uint16_t*>(x->data()),
                       static_cast<std::uint16_t*>(y->data()),
                       static_cast<std::int64_t>(x->nbytes() / sizeof(std::uint16_t)));
        return y;
    }
    const std::int64_t n = static_cast<std::int64_t>(x->nbytes() / sizeof(float));
    relu_flat(static_cast<const float*>(x->data()), static_cast<float*>(y->data()), n);
    return y;
}

// Whether a float32 buffer holds a NaN (padding of blocked layouts is zero):
// every value but NaN lies in [-inf, inf].
bool has_nan_flat(const float* p, std::int64_t n) {
    py::gil_scoped_release release;
    const float inf = std::numeric_limits<float>::infinity();
    return !all_within(p, n, -inf, inf);
}

bool has_nan(const py::object& x_obj) {
    TensorPtr x = as_tensor("has_nan", "x", x_obj);
    return has_nan_flat(static_cast<const float*>(x->data()),
                        static_cast<std::int64_t>(x->nbytes() / sizeof(float)));
}

// out = a + b over float32 buffers of one size (the physical buffers of
// mdarrays in one layout: cpuframe.backends.intel64's mdarray arithmetic),
// on the OpenMP team. NumPy's add is single-threaded: accumulating a 26 MB
// weight gradient took 1.8 ms with it, 0.9 ms on two threads.
void add_f32(py::array out, py::array a, py::array b) {
    constexpr const char* fn = "add_f32";
    auto check = [&](const py::array& x, const char* name) {
        if (!py::isinstance<py::array_t<float>>(x) ||
            !(x.flags() & py::array::c_style) || x.size() != out.size()) {
            throw py::value_error(std::string(fn) + ": expected " + name +
                                  " as a C-contiguous float32 array of " +
                                  std::to_string(out.size()) + " values");
        }
    };
    check(out, "out");
    check(a, "a");
    check(b, "b");
    if (!out.writeable()) throw py::value_error(std::string(fn) + ": out is read-only");
    float* po = static_cast<float*>(out.mutable_data());
    const float* pa = static_cast<const float*>(a.data());
    const float* pb = static_cast<const float*>(b.data());
    const std::int64_t n = static_cast<std::int64_t>(out.size());
    py::gil_scoped_release release;
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for simd schedule(static) if (n >= (std::int64_t{1} << 18))
#endif
    for (std::int64_t i = 0; i < n; ++i) po[i] = pa[i] + pb[i];
}

TensorPtr relu_grad_tensor(const py::object& y_obj, const py::object& gy_obj,
                           bool overwrite_gy) {
    constexpr const char* fn = "relu_grad";
    // f32, or bf16 when either is (mixed_bf16: then y, gy and gx are bf16).
    TensorPtr y = as_tensor_any(fn, "y", y_obj);
    TensorPtr gy = as_tensor_any(fn, "gy", gy_obj);
    const memory::data_type dt = compute_dt({&y, &gy});
    y = dense(guard_dnnl(fn, [&] { return "y " + shape_str(y->shape()); },
                         [&] { return y->as_data_type(dt); }));
    if (y->shape() != gy->shape()) {
        throw py::value_error(std::string(fn) + ": expected y and gy of the same shape, got y " +
                              shape_str(y->shape()) + " and gy " + shape_str(gy->shape()));
    }
    if (y->size() == 0) return Tensor::empty(y->desc(), y->shape());
    TensorPtr gx;
    guard_dnnl(fn, [&] { return "y " + shape_str(y->shape()); }, [&] {
        const TensorPtr given = gy;
        gy = in_layout(gy, y->desc());  // gy may come in another layout
        // oneDNN's eltwise backward may write diff_src over diff_dst: do it
        // into a reordered copy of gy (ours alone), or into gy itself when
        // the caller gives it up and no view shares its buffer.
        const bool copied = gy->data() != given->data();
        if (copied || (overwrite_gy && gy->owns_buffer_exclusively())) {
            gx = gy;
            gx->touch();  // written over
        } else {
            gx = Tensor::empty(y->desc(), y->shape());
        }
        if (dt == memory::data_type::bf16) {
            relu_grad_flat_bf16(static_cast<const std::uint16_t*>(y->data()),
                                static_cast<const std::uint16_t*>(gy->data()),
                                static_cast<std::uint16_t*>(gx->data()),
                                static_cast<std::int64_t>(y->nbytes() / sizeof(std::uint16_t)));
            return;
        }
        relu_grad_flat(static_cast<const float*>(y->data()),
                       static_cast<const float*>(gy->data()), static_cast<float*>(gx->data()),
                       static_cast<std::int64_t>(y->nbytes() / sizeof(float)));
    });
    return gx;
}

}  // namespace

void register_eltwise(py::module_& m) {
    m.def("add_f32", &add_f32, py::arg("out"), py::arg("a"), py::arg("b"),
          "out = a + b for C-contiguous float32 arrays of one size, on the OpenMP team "
          "(out may be a or b).");
    m.def("relu", &relu_tensor, py::arg("x"),
          R"doc(ReLU of a Tensor (or float32 ndarray), as a Tensor in x's layout.

Computed on the flat physical buffer, so any layout works without a reorder.
)doc");
    m.def("has_nan", &has_nan, py::arg("x"),
          "Whether a Tensor (or float32 ndarray) holds a NaN; reads its physical buffer.");
    m.def(
        "all_within",
        [](const py::object& x_obj, float low, float high) {
            TensorPtr x = as_tensor_any("all_within", "x", x_obj);
            if (!is_bf16(x)) x = as_tensor("all_within", "x", x_obj);  // float32 (or raises)
            // A weight checked at every call (padded convolutions, the RNN
            // routes) is read again only after a write (Tensor::touch).
            const std::uint64_t version = x->version();
            if (auto known = x->known_within(low, high, version)) return *known;
            bool result;
            if (is_bf16(x)) {
                result = all_within_bf16(static_cast<const std::uint16_t*>(x->data()),
                                         static_cast<std::int64_t>(x->nbytes() / 2), low, high);
            } else {
                const float* p = static_cast<const float*>(x->data());
                const auto n = static_cast<std::int64_t>(x->nbytes() / sizeof(float));
                py::gil_scoped_release release;
                result = all_within(p, n, low, high);
            }
            x->remember_within(low, high, version, result);
            return result;
        },
        py::arg("x"), py::arg("low"), py::arg("high"),
        "Whether every value of a Tensor (or float32 ndarray) lies in [low, high] "
        "(a NaN never does); reads its physical buffer.");
    m.def("relu_grad", &relu_grad_tensor, py::arg("y"), py::arg("gy"),
          py::arg("overwrite_gy") = false,
          R"doc(Gradient of relu from its output: gx = gy * (y > 0), in y's layout.

gy is reordered to y's layout first when the two differ (gx is then written
over that copy). With overwrite_gy=True the caller gives gy up: when gy is in
y's layout and alone holds its buffer (owns_buffer), gx is written over gy
and gy itself is returned.
)doc");
}

}  // namespace cpuframe
