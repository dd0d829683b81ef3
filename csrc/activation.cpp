// Element-wise activations on oneDNN's eltwise primitives: leaky ReLU, ELU,
// tanh and the logistic sigmoid, forward and backward (ReLU is in
// eltwise.cpp).
//
// An element-wise op does not care about layout: every dense tensor (plain,
// NHWC or blocked) is described to oneDNN as one flat array over its whole
// buffer, so the output has the input's layout and no reorder happens; the
// zeros in a blocked layout's padding map to zeros (sigmoid rewrites them).
// Backward ops pair the buffers of two tensors element by element, so the
// second one is brought into the first one's layout when they differ.
//
// Chainer's one-sided choices at the kinks are kept exactly: leaky ReLU and
// ELU use the x >= 0 branch at x == 0 (oneDNN's own backward uses the other
// one there), see leaky_relu_backward and elu_backward.
//
// mixed_bf16: a bf16 x (or ref) gives bf16 y and gx, computed in float32 and
// rounded once (gy is read as bf16 then).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>

#include "array_utils.hpp"
#include "bf16.hpp"
#include "dense_layout.hpp"
#include "engine.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using dnnl::algorithm;
using dnnl::prop_kind;
using eltwise_fwd = dnnl::eltwise_forward;
using eltwise_bwd = dnnl::eltwise_backward;

// Element counts below this run on one thread (a parallel region costs more).
constexpr std::int64_t parallel_threshold = 1 << 15;

const char* algorithm_name(algorithm alg) {
    switch (alg) {
        case algorithm::eltwise_relu: return "relu";
        case algorithm::eltwise_elu: return "elu";
        case algorithm::eltwise_tanh_use_dst_for_bwd: return "tanh_use_dst";
        case algorithm::eltwise_logistic_use_dst_for_bwd: return "logistic_use_dst";
        default: return "other";
    }
}

eltwise_fwd::primitive_desc forward_pd(prop_kind kind, algorithm alg, const memory::desc& md,
                                       float alpha) {
    return eltwise_fwd::primitive_desc(cpu_engine(), kind, alg, md, md, alpha, 0.0f, op_attr());
}

// y = f(x) in x's layout.
TensorPtr eltwise_forward(const char* fn, const py::object& x_obj, algorithm alg, float alpha) {
    TensorPtr x = as_tensor_any(fn, "x", x_obj);  // f32, or bf16 in and out (mixed_bf16)
    return guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()) + " " + x->format(); }, [&] {
        x = dense_tensor(x);
        TensorPtr y = Tensor::empty(x->desc(), x->shape());
        if (x->size() == 0) return y;
        const memory::desc flat = flat_desc(x->desc());
        PrimitiveKey key("eltwise_forward_flat");
        key.dtype(flat.get_data_type()).text("alg", algorithm_name(alg)).scalar("alpha", alpha)
            .shape(flat.get_dims());
        dnnl::primitive prim = PrimitiveCache::global().get_or_create(key, [&] {
            return dnnl::primitive(
                eltwise_fwd(forward_pd(prop_kind::forward_inference, alg, flat, alpha)));
        });
        execute(prim, {{DNNL_ARG_SRC, x->mem_as(flat)}, {DNNL_ARG_DST, y->mem_as(flat)}});
        if (alg == algorithm::eltwise_logistic_use_dst_for_bwd) y->zero_padding();
        return y;
    });
}

// ref (x or y of the forward) dense, gy in ref's layout (and data type).
// any_type: the caller computes in bf16 too (mixed_bf16): when either is
// bf16, both are (a float32 one converted, as the NumPy reference rounds it).
std::pair<TensorPtr, TensorPtr> paired(const char* fn, const char* ref_name,
                                       const py::object& ref_obj, const py::object& gy_obj,
                                       bool any_type = false) {
    TensorPtr ref = any_type ? as_tensor_any(fn, ref_name, ref_obj)
                             : as_tensor(fn, ref_name, ref_obj);
    TensorPtr gy = any_type ? as_tensor_any(fn, "gy", gy_obj) : as_tensor(fn, "gy", gy_obj);
    if (ref->shape() != gy->shape()) {
        throw py::value_error(std::string(fn) + ": expected " + ref_name +
                              " and gy of the same shape, got " + shape_str(ref->shape()) +
                              " and " + shape_str(gy->shape()));
    }
    return guard_dnnl(fn, [&] { return std::string(ref_name) + " " + shape_str(ref->shape()); },
                      [&] {
                          ref = dense_tensor(ref);
                          if (any_type) ref = ref->as_data_type(compute_dt({&ref, &gy}));
                          return std::make_pair(ref, in_layout(gy, ref->desc()));
                      });
}

// gx from the forward's input (use_dst = false) or output (true), in its layout.
TensorPtr eltwise_backward(const char* fn, const TensorPtr& ref, const TensorPtr& gy,
                           algorithm alg, float alpha, bool use_dst) {
    return guard_dnnl(fn, [&] { return "gy " + shape_str(gy->shape()) + " " + gy->format(); },
                      [&] {
        TensorPtr gx = Tensor::empty(ref->desc(), ref->shape());
        if (ref->size() == 0) return gx;
        const memory::desc flat = flat_desc(ref->desc());
        PrimitiveKey key("eltwise_backward_flat");
        key.dtype(flat.get_data_type()).text("alg", algorithm_name(alg)).scalar("alpha", alpha)
            .shape(flat.get_dims());
        dnnl::primitive prim = PrimitiveCache::global().get_or_create(key, [&] {
            const eltwise_fwd::primitive_desc hint =
                forward_pd(prop_kind::forward_training, alg, flat, alpha);
            return dnnl::primitive(eltwise_bwd(
                eltwise_bwd::primitive_desc(cpu_engine(), alg, flat, flat, flat, alpha, 0.0f, hint,
                                            op_attr())));
        });
        execute(prim, {{use_dst ? DNNL_ARG_DST : DNNL_ARG_SRC, ref->mem_as(flat)},
                       {DNNL_ARG_DIFF_DST, gy->mem_as(flat)},
                       {DNNL_ARG_DIFF_SRC, gx->mem_as(flat)}});
        return gx;
    });
}

// Runs body(begin, end) over [0, n) in chunks, in parallel for large n, with
// the GIL released.
template <class Body>
void parallel_chunks(std::int64_t n, Body&& body) {
    py::gil_scoped_release release;
    if (n < parallel_threshold) {
        body(std::int64_t{0}, n);
        return;
    }
    constexpr std::int64_t chunk = 1 << 14;
    const std::int64_t chunks = (n + chunk - 1) / chunk;
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for schedule(static)
#endif
    for (std::int64_t c = 0; c < chunks; ++c) {
        const std::int64_t begin = c * chunk;
        body(begin, std::min(n, begin + chunk));
    }
}

std::int64_t flat_count(const TensorPtr& t) {
    return static_cast<std::int64_t>(t->nbytes() / sizeof(float));
}

// -- the ops ------------------------------------------------------------------

TensorPtr leaky_relu_forward(const py::object& x, float slope) {
    // x * slope for x < 0; oneDNN's relu gives the same (slope * 0 is 0 at 0).
    return eltwise_forward("leaky_relu_forward", x, algorithm::eltwise_relu, slope);
}

TensorPtr leaky_relu_backward(const py::object& ref_obj, const py::object& gy_obj, float slope) {
    // gx = gy * (slope if ref < 0 else 1), ref being x or y (same signs for
    // slope > 0). One pass of our own: oneDNN's relu backward takes the
    // slope at 0.
    constexpr const char* fn = "leaky_relu_backward";
    auto [ref, gy] = paired(fn, "ref", ref_obj, gy_obj, true);
    TensorPtr gx = Tensor::empty(ref->desc(), ref->shape());
    const std::int64_t n = static_cast<std::int64_t>(ref->nbytes() /
                                                     memory::data_type_size(ref->dtype()));
    if (ref->dtype() == memory::data_type::bf16) {
        const bf16_t* r = static_cast<const bf16_t*>(ref->data());
        const bf16_t* g = static_cast<const bf16_t*>(gy->data());
        bf16_t* out = static_cast<bf16_t*>(gx->data());
        parallel_chunks(n, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t i = begin; i < end; ++i) {
                out[i] = from_bf16(r[i]) < 0.0f ? to_bf16(from_bf16(g[i]) * slope) : g[i];
            }
        });
        return gx;
    }
    const float* r = static_cast<const float*>(ref->data());
    const float* g = static_cast<const float*>(gy->data());
    float* out = static_cast<float*>(gx->data());
    parallel_chunks(n, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) out[i] = r[i] < 0.0f ? g[i] * slope : g[i];
    });
    return gx;
}

TensorPtr elu_forward(const py::object& x, float alpha) {
    return eltwise_forward("elu_forward", x, algorithm::eltwise_elu, alpha);
}

TensorPtr elu_backward(const py::object& x_obj, const py::object& gy_obj, float alpha) {
    // gx = gy * (alpha * exp(x) if x < 0 else 1). oneDNN computes
    // alpha * exp(0) * gy at x == 0, which differs from Chainer's gy unless
    // alpha == 1; those elements are rewritten.
    constexpr const char* fn = "elu_backward";
    auto [x, gy] = paired(fn, "x", x_obj, gy_obj, true);
    TensorPtr gx = eltwise_backward(fn, x, gy, algorithm::eltwise_elu, alpha, false);
    if (alpha != 1.0f && x->dtype() == memory::data_type::bf16) {
        const bf16_t* xs = static_cast<const bf16_t*>(x->data());
        const bf16_t* g = static_cast<const bf16_t*>(gy->data());
        bf16_t* out = static_cast<bf16_t*>(gx->data());
        const std::int64_t n = static_cast<std::int64_t>(x->nbytes() / sizeof(bf16_t));
        parallel_chunks(n, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t i = begin; i < end; ++i) {
                if (from_bf16(xs[i]) == 0.0f) out[i] = g[i];
            }
        });
    } else if (alpha != 1.0f) {
        const float* xs = static_cast<const float*>(x->data());
        const float* g = static_cast<const float*>(gy->data());
        float* out = static_cast<float*>(gx->data());
        parallel_chunks(flat_count(x), [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t i = begin; i < end; ++i) out[i] = xs[i] == 0.0f ? g[i] : out[i];
        });
    }
    return gx;
}

TensorPtr tanh_forward(const py::object& x) {
    return eltwise_forward("tanh_forward", x, algorithm::eltwise_tanh_use_dst_for_bwd, 0.0f);
}

TensorPtr tanh_backward(const py::object& y_obj, const py::object& gy_obj) {
    constexpr const char* fn = "tanh_backward";
    auto [y, gy] = paired(fn, "y", y_obj, gy_obj, true);
    return eltwise_backward(fn, y, gy, algorithm::eltwise_tanh_use_dst_for_bwd, 0.0f, true);
}

TensorPtr sigmoid_forward(const py::object& x) {
    return eltwise_forward("sigmoid_forward", x, algorithm::eltwise_logistic_use_dst_for_bwd,
                           0.0f);
}

TensorPtr sigmoid_backward(const py::object& y_obj, const py::object& gy_obj) {
    constexpr const char* fn = "sigmoid_backward";
    auto [y, gy] = paired(fn, "y", y_obj, gy_obj, true);
    return eltwise_backward(fn, y, gy, algorithm::eltwise_logistic_use_dst_for_bwd, 0.0f, true);
}

}  // namespace

void register_activation(py::module_& m) {
    m.def("leaky_relu_forward", &leaky_relu_forward, py::arg("x"), py::arg("slope"),
          "Leaky ReLU, y = x if x >= 0 else slope * x, in x's layout.");
    m.def("leaky_relu_backward", &leaky_relu_backward, py::arg("ref"), py::arg("gy"),
          py::arg("slope"),
          "gx = gy * (slope if ref < 0 else 1) in ref's layout; ref is the forward's x, "
          "or its y when slope > 0.");
    m.def("elu_forward", &elu_forward, py::arg("x"), py::arg("alpha"),
          "ELU, y = x if x >= 0 else alpha * (exp(x) - 1), in x's layout.");
    m.def("elu_backward", &elu_backward, py::arg("x"), py::arg("gy"), py::arg("alpha"),
          "gx = gy * (alpha * exp(x) if x < 0 else 1) in x's layout.");
    m.def("tanh_forward", &tanh_forward, py::arg("x"), "y = tanh(x) in x's layout.");
    m.def("tanh_backward", &tanh_backward, py::arg("y"), py::arg("gy"),
          "gx = gy * (1 - y ** 2) from the forward's output y, in y's layout.");
    m.def("sigmoid_forward", &sigmoid_forward, py::arg("x"),
          "y = 1 / (1 + exp(-x)) in x's layout.");
    m.def("sigmoid_backward", &sigmoid_backward, py::arg("y"), py::arg("gy"),
          "gx = gy * y * (1 - y) from the forward's output y, in y's layout.");
}

}  // namespace cpuframe
