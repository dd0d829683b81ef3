// Element-wise optimizer updates in one pass over a parameter (Adam, momentum
// SGD, SGD), for cpuframe.optimizers on NumPy parameters (and on the flat
// views of an Intel64 parameter's buffers). Each kernel performs exactly the
// float32 operations of the rule's NumPy code, in the same order, each
// rounded once (this file is compiled with -ffp-contract=off: no fused
// multiply-add), so the parameters and moments are bit for bit those of the
// NumPy path; the gain is one pass and one call instead of ~14 NumPy calls
// and their temporaries per parameter (momentum SGD: 4 passes and a
// temporary -> 1 pass; ResNet-50's 25.6M parameters are ~100 MB each).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <initializer_list>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "ops.hpp"
#include "simd/kernels.hpp"

namespace py = pybind11;

namespace cpuframe {
namespace {

// Whether ``a`` is a C-contiguous float32 array of ``ref``'s shape (writeable
// if asked): NumPy would broadcast, or refuse, arrays of other shapes.
bool fits(const py::array& a, const py::array& ref, bool write) {
    if (!py::isinstance<py::array_t<float>>(a) || !(a.flags() & py::array::c_style) ||
        (write && !a.writeable()) || a.ndim() != ref.ndim()) {
        return false;
    }
    for (py::ssize_t i = 0; i < a.ndim(); ++i) {
        if (a.shape(i) != ref.shape(i)) return false;
    }
    return true;
}

// Whether any two of the float ranges [ptrs[i], ptrs[i] + n) share memory (a
// view of one buffer in two roles: NumPy's in-place operations then read
// copies, a single pass would not).
bool any_overlap(std::initializer_list<const float*> ptrs, std::int64_t n) {
    for (auto a = ptrs.begin(); a != ptrs.end(); ++a) {
        for (auto b = a + 1; b != ptrs.end(); ++b) {
            if (*a < *b + n && *b < *a + n) return true;
        }
    }
    return false;
}

// AdamRule._update_in_place's arithmetic (cpuframe/optimizers/adam.py):
//   t = g - m; t *= c1; m += t; t = g * g; t -= v; t *= c2; v += t
//   s = sqrt(v); s += eps; s = alpha_t / s; s *= m; t = wd * p; s += t
//   s *= eta; p -= s
// with c1 = 1 - beta1, c2 = 1 - beta2 and every scalar rounded to float32
// first, as NumPy does with Python floats on float32 arrays.
//
// One pass of it over n values. The loop is
// element-wise with no cross-element dependence: the compiler vectorizes
// it (this file is built with -fno-math-errno, so sqrt is an instruction:
// vsqrtps and vdivps round exactly as the scalar operations do, and there
// is no fused multiply-add), once for the baseline ISA and once for AVX2.
// (Inlined into each ISA's function below, which compiles it for that ISA.)
__attribute__((always_inline)) inline void adam_pass(float* __restrict p,
                                                     const float* __restrict g,
                                                     float* __restrict pm, float* __restrict pv,
                                                     std::int64_t n, float fc1, float fc2,
                                                     float feps, float fa, float fwd, float feta) {
    for (std::int64_t i = 0; i < n; ++i) {
        const float gi = g[i];
        float t = gi - pm[i];
        t = t * fc1;
        const float mi = pm[i] + t;
        pm[i] = mi;
        t = gi * gi;
        t = t - pv[i];
        t = t * fc2;
        const float vi = pv[i] + t;
        pv[i] = vi;
        float s = std::sqrt(vi);
        s = s + feps;
        s = fa / s;
        s = s * mi;
        t = fwd * p[i];
        s = s + t;
        s = s * feta;
        p[i] = p[i] - s;
    }
}

void adam_baseline(float* p, const float* g, float* pm, float* pv, std::int64_t n, float c1,
                   float c2, float eps, float a, float wd, float eta) {
    adam_pass(p, g, pm, pv, n, c1, c2, eps, a, wd, eta);
}

#if CPUFRAME_SIMD_X86
__attribute__((target("avx2"))) void adam_avx2(float* p, const float* g, float* pm, float* pv,
                                               std::int64_t n, float c1, float c2, float eps,
                                               float a, float wd, float eta) {
    adam_pass(p, g, pm, pv, n, c1, c2, eps, a, wd, eta);
}
#endif

// The update of one parameter: false, having done nothing, unless param, m
// and v are writeable and all four are distinct C-contiguous float32 arrays
// of one size (the caller then runs the NumPy code).
bool adam_update_f32(py::array param, py::array grad, py::array m, py::array v, double c1,
                     double c2, double eps, double alpha_t, double weight_decay,
                     double eta) {
    const py::ssize_t n = param.size();
    if (!fits(param, param, true) || !fits(m, param, true) || !fits(v, param, true) ||
        !fits(grad, param, false)) {
        return false;
    }
    float* p = static_cast<float*>(param.mutable_data());
    float* pm = static_cast<float*>(m.mutable_data());
    float* pv = static_cast<float*>(v.mutable_data());
    const float* g = static_cast<const float*>(grad.data());
    if (any_overlap({p, pm, pv, g}, n)) return false;
    const float fc1 = static_cast<float>(c1), fc2 = static_cast<float>(c2);
    const float feps = static_cast<float>(eps), fa = static_cast<float>(alpha_t);
    const float fwd = static_cast<float>(weight_decay), feta = static_cast<float>(eta);
    py::gil_scoped_release release;
#if CPUFRAME_SIMD_X86
    if (kernel_isa() != KernelIsa::scalar) {
        adam_avx2(p, g, pm, pv, n, fc1, fc2, feps, fa, fwd, feta);
        return true;
    }
#endif
    adam_baseline(p, g, pm, pv, n, fc1, fc2, feps, fa, fwd, feta);
    return true;
}

// Whether NumPy computes with a Python float as a float32 in a float32
// operation: every value but a finite one beyond float32's largest (NumPy
// 1.x then computes in float64; NumPy 2 rounds it to float32's largest or
// to inf).
bool rounds_as_numpy(double x) {
    return !std::isfinite(x) || std::fabs(x) <= static_cast<double>(FLT_MAX);
}

// MomentumSGDRule.step's arithmetic (cpuframe/optimizers/momentum_sgd.py):
//   v *= momentum; t = lr * g; v -= t; p += v
// and SGD's (sgd.py): t = lr * g; p -= t; every scalar rounded to float32.
__attribute__((always_inline)) inline void momentum_pass(float* __restrict p,
                                                         const float* __restrict g,
                                                         float* __restrict pv, std::int64_t n,
                                                         float lr, float mu) {
    for (std::int64_t i = 0; i < n; ++i) {
        float vi = pv[i] * mu;
        const float t = lr * g[i];
        vi = vi - t;
        pv[i] = vi;
        p[i] = p[i] + vi;
    }
}

__attribute__((always_inline)) inline void sgd_pass(float* __restrict p,
                                                    const float* __restrict g, std::int64_t n,
                                                    float lr) {
    for (std::int64_t i = 0; i < n; ++i) {
        const float t = lr * g[i];
        p[i] = p[i] - t;
    }
}

void momentum_baseline(float* p, const float* g, float* pv, std::int64_t n, float lr, float mu) {
    momentum_pass(p, g, pv, n, lr, mu);
}

void sgd_baseline(float* p, const float* g, std::int64_t n, float lr) { sgd_pass(p, g, n, lr); }

#if CPUFRAME_SIMD_X86
__attribute__((target("avx2"))) void momentum_avx2(float* p, const float* g, float* pv,
                                                   std::int64_t n, float lr, float mu) {
    momentum_pass(p, g, pv, n, lr, mu);
}

__attribute__((target("avx2"))) void sgd_avx2(float* p, const float* g, std::int64_t n,
                                              float lr) {
    sgd_pass(p, g, n, lr);
}
#endif

// Momentum SGD's update of one parameter: false, having done nothing, unless
// param and v are writeable and the three are distinct C-contiguous float32
// arrays of one shape and lr and momentum round to float32 as NumPy rounds
// them (the caller then runs the NumPy code).
bool momentum_sgd_update_f32(py::array param, py::array grad, py::array v, double lr,
                             double momentum) {
    const py::ssize_t n = param.size();
    if (!fits(param, param, true) || !fits(v, param, true) || !fits(grad, param, false) ||
        !rounds_as_numpy(lr) || !rounds_as_numpy(momentum)) {
        return false;
    }
    float* p = static_cast<float*>(param.mutable_data());
    float* pv = static_cast<float*>(v.mutable_data());
    const float* g = static_cast<const float*>(grad.data());
    if (any_overlap({p, pv, g}, n)) return false;
    const float flr = static_cast<float>(lr), fmu = static_cast<float>(momentum);
    py::gil_scoped_release release;
#if CPUFRAME_SIMD_X86
    if (kernel_isa() != KernelIsa::scalar) {
        momentum_avx2(p, g, pv, n, flr, fmu);
        return true;
    }
#endif
    momentum_baseline(p, g, pv, n, flr, fmu);
    return true;
}

// SGD's update of one parameter, as momentum_sgd_update_f32 without v.
bool sgd_update_f32(py::array param, py::array grad, double lr) {
    const py::ssize_t n = param.size();
    if (!fits(param, param, true) || !fits(grad, param, false) || !rounds_as_numpy(lr)) {
        return false;
    }
    float* p = static_cast<float*>(param.mutable_data());
    const float* g = static_cast<const float*>(grad.data());
    if (any_overlap({p, g}, n)) return false;
    const float flr = static_cast<float>(lr);
    py::gil_scoped_release release;
#if CPUFRAME_SIMD_X86
    if (kernel_isa() != KernelIsa::scalar) {
        sgd_avx2(p, g, n, flr);
        return true;
    }
#endif
    sgd_baseline(p, g, n, flr);
    return true;
}

}  // namespace

void register_optimizer(py::module_& m) {
    m.def("adam_update_f32", &adam_update_f32, py::arg("param"), py::arg("grad"),
          py::arg("m"), py::arg("v"), py::arg("c1"), py::arg("c2"), py::arg("eps"),
          py::arg("alpha_t"), py::arg("weight_decay"), py::arg("eta"),
          "Adam's update of one float32 parameter in place (NumPy's arithmetic, "
          "bit for bit); False (nothing done) unless all four arrays are "
          "C-contiguous float32 of one shape, the parameter and moments writeable.");
    m.def("momentum_sgd_update_f32", &momentum_sgd_update_f32, py::arg("param"),
          py::arg("grad"), py::arg("v"), py::arg("lr"), py::arg("momentum"),
          "MomentumSGD's update of one float32 parameter in place (v *= momentum; "
          "v -= lr * grad; param += v: NumPy's arithmetic, bit for bit); False (nothing "
          "done) unless the three arrays are distinct C-contiguous float32 of one shape, "
          "param and v writeable, and lr and momentum within float32's range.");
    m.def("sgd_update_f32", &sgd_update_f32, py::arg("param"), py::arg("grad"), py::arg("lr"),
          "SGD's update of one float32 parameter in place (param -= lr * grad: NumPy's "
          "arithmetic, bit for bit); False (nothing done) unless both arrays are "
          "distinct C-contiguous float32 of one shape, param writeable, and lr within "
          "float32's range.");
}

}  // namespace cpuframe
