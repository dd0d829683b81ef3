// Element-wise ops: ReLU and leaky ReLU.
//
// Inputs are plain C-contiguous NumPy buffers or native Tensors read as their
// flat physical buffer, so an element-wise op does not care about shape or
// layout. The NumPy-buffer versions (relu_forward/relu_backward, with a
// negative slope) run oneDNN's eltwise primitives, one primitive per element
// count, as does the Tensor version of the ReLU gradient (relu_grad). The
// Tensor version of the ReLU forward (relu) is a loop of ours: oneDNN's relu
// kernel turns NaN into 0 where the NumPy path keeps it; the op is memory
// bound, and the loop is as fast as the primitive.
#include <limits>
#include <cstdint>
#include <string>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "array_utils.hpp"
#include "deferred.hpp"
#include "engine.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;

memory::desc flat_f32_desc(memory::dim n) {
    return memory::desc({n}, memory::data_type::f32, memory::format_tag::a);
}

PrimitiveKey relu_key(const char* op, memory::dim n, float negative_slope) {
    PrimitiveKey key(op);
    key.prop(prop_kind::forward_training)
        .algorithm(algorithm::eltwise_relu)
        .dtype(memory::data_type::f32)
        .layout(memory::format_tag::a)
        .shape({n})
        .scalar("alpha", negative_slope);
    return key;
}

dnnl::eltwise_forward::primitive_desc relu_forward_pd(const memory::desc& md,
                                                      float negative_slope) {
    return dnnl::eltwise_forward::primitive_desc(cpu_engine(), prop_kind::forward_training,
                                                 algorithm::eltwise_relu, md, md,
                                                 negative_slope, 0.0f, op_attr());
}

float* data_of(const py::array& a) {
    // oneDNN takes a non-const handle even for memory it only reads.
    return static_cast<float*>(const_cast<void*>(a.data()));
}

py::array_t<float> relu_forward(const py::object& x_obj, float negative_slope) {
    constexpr const char* fn = "relu_forward";
    py::array x = float32_c_array(fn, "x", x_obj);
    py::array_t<float> y(shape_of(x));
    const memory::dim n = x.size();
    if (n == 0) return y;

    guard_dnnl(fn, [&] { return "x " + shape_str(x); }, [&] {
        const memory::desc md = flat_f32_desc(n);
        dnnl::primitive relu = PrimitiveCache::global().get_or_create(
            relu_key("eltwise_forward", n, negative_slope), [&] {
                return dnnl::eltwise_forward(relu_forward_pd(md, negative_slope));
            });
        const dnnl::engine& engine = cpu_engine();
        execute(relu, {{DNNL_ARG_SRC, memory(md, engine, data_of(x))},
                       {DNNL_ARG_DST, memory(md, engine, y.mutable_data())}});
    });
    return y;
}

py::array_t<float> relu_backward(const py::object& x_obj, const py::object& gy_obj,
                        float negative_slope) {
    constexpr const char* fn = "relu_backward";
    py::array x = float32_c_array(fn, "x", x_obj);
    py::array gy = float32_c_array(fn, "gy", gy_obj);
    if (!same_shape(x, gy)) {
        throw py::value_error(std::string(fn) + ": expected x and gy of the same shape, got x " +
                              shape_str(x) + " and gy " + shape_str(gy));
    }
    py::array_t<float> gx(shape_of(x));
    const memory::dim n = x.size();
    if (n == 0) return gx;

    guard_dnnl(fn, [&] { return "x " + shape_str(x) + " and gy " + shape_str(gy); }, [&] {
        const memory::desc md = flat_f32_desc(n);
        dnnl::primitive relu_grad = PrimitiveCache::global().get_or_create(
            relu_key("eltwise_backward", n, negative_slope), [&] {
                return dnnl::eltwise_backward(dnnl::eltwise_backward::primitive_desc(
                    cpu_engine(), algorithm::eltwise_relu, md, md, md, negative_slope, 0.0f,
                    relu_forward_pd(md, negative_slope), op_attr()));
            });
        const dnnl::engine& engine = cpu_engine();
        execute(relu_grad, {{DNNL_ARG_SRC, memory(md, engine, data_of(x))},
                            {DNNL_ARG_DIFF_DST, memory(md, engine, data_of(gy))},
                            {DNNL_ARG_DIFF_SRC, memory(md, engine, gx.mutable_data())}});
    });
    return gx;
}

// -- Tensor versions: any layout, computed on the flat physical buffer --------

// t itself when its buffer is dense (plain or blocked), else a plain copy;
// element-wise ops then read the buffer as one flat array.
TensorPtr dense(const TensorPtr& t) {
    const memory::desc& md = t->desc();
    if (md.get_inner_nblks() > 0 || t->is_plain()) return t;
    // A permutation (e.g. NHWC) is dense when its size equals the element count;
    // strided NumPy views are not.
    if (md.get_size() == static_cast<std::size_t>(t->size()) * sizeof(float)) return t;
    return t->reordered(plain_desc(md.get_dims()));
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
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for simd schedule(static) if (n >= (std::int64_t{1} << 16))
#endif
    for (std::int64_t i = 0; i < n; ++i) gx[i] = y[i] > 0.0f ? gy[i] : 0.0f;
}

TensorPtr relu_tensor(const py::object& x_obj) {
    constexpr const char* fn = "relu";
    TensorPtr x = dense(as_tensor(fn, "x", x_obj));
    TensorPtr y = Tensor::empty(x->desc(), x->shape());
    const std::int64_t n = static_cast<std::int64_t>(x->nbytes() / sizeof(float));
    if (x->size() == 0) return y;
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
    TensorPtr y = dense(as_tensor(fn, "y", y_obj));
    TensorPtr gy = as_tensor(fn, "gy", gy_obj);
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
        } else {
            gx = Tensor::empty(y->desc(), y->shape());
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
            TensorPtr x = as_tensor("all_within", "x", x_obj);
            const float* p = static_cast<const float*>(x->data());
            const auto n = static_cast<std::int64_t>(x->nbytes() / sizeof(float));
            py::gil_scoped_release release;
            return all_within(p, n, low, high);
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
    m.def("relu_forward", &relu_forward, py::arg("x"), py::arg("negative_slope") = 0.0f,
          R"doc(Rectified linear unit, or leaky ReLU when negative_slope != 0.

    y = x if x > 0 else negative_slope * x

Args:
    x: float32 ndarray of any shape. A non-contiguous array is copied once.
    negative_slope: slope for x <= 0.

Returns:
    A new float32 ndarray y with x's shape.

>>> relu_forward(np.array([-2.0, 3.0], np.float32), 0.5)
array([-1.,  3.], dtype=float32)
)doc");
    m.def("relu_backward", &relu_backward, py::arg("x"), py::arg("gy"),
          py::arg("negative_slope") = 0.0f,
          R"doc(Gradient of relu_forward with respect to its input.

    gx = gy if x > 0 else negative_slope * gy

Args:
    x: the float32 ndarray relu_forward was given.
    gy: float32 ndarray of x's shape, the gradient of the loss w.r.t. y.
    negative_slope: the slope relu_forward used.

Returns:
    A new float32 ndarray gx with x's shape.
)doc");
}

}  // namespace cpuframe
