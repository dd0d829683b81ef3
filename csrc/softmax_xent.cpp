// Softmax cross entropy over the class axis of a 2-D score matrix, as two
// fused passes of ours (oneDNN has no cross-entropy primitive): the forward
// keeps only the per-row log-sum-exp, and the backward recomputes the
// softmax from the scores while it writes the gradient, so no (N, C)
// probability matrix is ever stored (700 x 10000 floats for a PTB batch).
//
// Rows run in parallel; exp is the polynomial of csrc/simd (AVX-512, AVX2 or
// scalar, chosen at run time). NaN and infinities propagate as in the
// NumPy path: a row holding one gets a NaN log-sum-exp.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "array_utils.hpp"
#include "ops.hpp"
#include "simd/kernels.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using i64 = std::int64_t;

// Max over a row; NaN when the row holds one.
float row_max(const float* x, i64 c) { return simd_kernels().row_max(x, c); }

float row_sum_exp(const float* x, float m, i64 c) { return simd_kernels().row_sum_exp(x, m, c); }

void row_grad(const float* x, float lse, float f, float* g, i64 c) {
    simd_kernels().row_grad(x, lse, f, g, c);
}

// x as a plain (N, C) float32 buffer (reordered if its layout is another).
TensorPtr plain_scores(const char* fn, const py::object& x_obj) {
    TensorPtr x = as_tensor(fn, "x", x_obj);
    if (x->ndim() != 2 || x->shape()[0] == 0 || x->shape()[1] == 0) {
        throw py::value_error(std::string(fn) + ": expected x of 2 non-empty dimensions (N, C), got " +
                              shape_str(x->shape()));
    }
    return in_layout(x, plain_desc(to_dims(x->shape())));
}

// Labels (N,) int64; a negative label marks an ignored row.
py::array_t<std::int64_t> labels(const char* fn, const py::object& t_obj, i64 n, i64 c) {
    auto t = py::array_t<std::int64_t, py::array::c_style>::ensure(t_obj);
    if (!t || t.ndim() != 1 || t.shape(0) != n) {
        throw py::value_error(std::string(fn) + ": expected t as " + std::to_string(n) +
                              " int64 labels (one per row of x)");
    }
    const std::int64_t* p = t.data();
    for (i64 i = 0; i < n; ++i) {
        if (p[i] >= c) {
            throw py::value_error(std::string(fn) + ": expected labels below " +
                                  std::to_string(c) + " (or negative: ignored), got " +
                                  std::to_string(p[i]));
        }
    }
    return t;
}

// Returns (loss, lse): loss[n] = lse[n] - x[n, t[n]] (0 where t[n] < 0) and
// lse[n] = log(sum_c exp(x[n, c])), both (N,) float32 arrays.
py::tuple softmax_xent_forward(const py::object& x_obj, const py::object& t_obj) {
    constexpr const char* fn = "softmax_cross_entropy_forward";
    TensorPtr x = plain_scores(fn, x_obj);
    const i64 n = x->shape()[0], c = x->shape()[1];
    py::array_t<std::int64_t> t = labels(fn, t_obj, n, c);
    // (An explicit shape: array_t<float>(n) from an int64 gets strides 0.)
    py::array_t<float> loss(std::vector<py::ssize_t>{n}), lse(std::vector<py::ssize_t>{n});
    const float* px = static_cast<const float*>(x->data());
    const std::int64_t* pt = t.data();
    float* pl = loss.mutable_data();
    float* ps = lse.mutable_data();
    {
        py::gil_scoped_release release;
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for schedule(static) if (n * c >= (i64{1} << 15))
#endif
        for (i64 i = 0; i < n; ++i) {
            const float* row = px + i * c;
            // An infinite max gives inf - inf = NaN in the sum, as in NumPy.
            const float m = row_max(row, c);
            const float s = m + std::log(row_sum_exp(row, m, c));
            ps[i] = s;
            pl[i] = pt[i] < 0 ? 0.0f : s - row[pt[i]];
        }
    }
    return py::make_tuple(loss, lse);
}

// gx[n, c] = f[n] * (exp(x[n, c] - lse[n]) - [c == t[n]]), a plain (N, C)
// Tensor; f (N,) already holds the loss's scale, class weights and zeros
// for ignored rows.
TensorPtr softmax_xent_backward(const py::object& x_obj, const py::object& lse_obj,
                                const py::object& t_obj, const py::object& f_obj) {
    constexpr const char* fn = "softmax_cross_entropy_backward";
    TensorPtr x = plain_scores(fn, x_obj);
    const i64 n = x->shape()[0], c = x->shape()[1];
    py::array_t<std::int64_t> t = labels(fn, t_obj, n, c);
    auto lse = py::array_t<float, py::array::c_style>::ensure(lse_obj);
    auto f = py::array_t<float, py::array::c_style>::ensure(f_obj);
    if (!lse || !f || lse.ndim() != 1 || f.ndim() != 1 || lse.shape(0) != n ||
        f.shape(0) != n) {
        throw py::value_error(std::string(fn) + ": expected lse and f as " + std::to_string(n) +
                              " float32 values each (one per row of x)");
    }
    TensorPtr gx = Tensor::empty(plain_desc(to_dims(x->shape())), x->shape());
    const float* px = static_cast<const float*>(x->data());
    float* pg = static_cast<float*>(gx->data());
    const std::int64_t* pt = t.data();
    const float* pl = lse.data();
    const float* pf = f.data();
    {
        py::gil_scoped_release release;
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for schedule(static) if (n * c >= (i64{1} << 15))
#endif
        for (i64 i = 0; i < n; ++i) {
            row_grad(px + i * c, pl[i], pf[i], pg + i * c, c);
            if (pt[i] >= 0) pg[i * c + pt[i]] -= pf[i];
        }
    }
    return gx;
}

}  // namespace

void register_softmax_xent(py::module_& m) {
    m.def("softmax_cross_entropy_forward", &softmax_xent_forward, py::arg("x"), py::arg("t"),
          R"doc(Per-row softmax cross entropy of scores x (N, C) with labels t.

t: (N,) int64, a negative label marks an ignored row (its loss is 0).
Returns (loss, lse), (N,) float32 arrays: loss = lse - x[n, t[n]] and
lse = log(sum_c exp(x[n, c])), the log-sum-exp the backward needs.
)doc");
    m.def("softmax_cross_entropy_backward", &softmax_xent_backward, py::arg("x"),
          py::arg("lse"), py::arg("t"), py::arg("f"),
          R"doc(Gradient of the softmax cross entropy by x, as a plain Tensor.

gx[n, c] = f[n] * (softmax(x)[n, c] - [c == t[n]]), with the softmax
recomputed from x and lse (from the forward); f (N,) float32 per-row factors
(0 for ignored rows).
)doc");
}

}  // namespace cpuframe
