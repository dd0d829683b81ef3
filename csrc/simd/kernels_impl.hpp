// The kernels of SimdKernels (kernels.hpp), written once against vec.hpp.
// Included by one translation unit per ISA, each compiled with that ISA's
// flags; everything here has internal linkage, so the copies never meet.
//
// exp is a Cephes-style polynomial (about 1 ulp) on x clamped to [-87, 88];
// NaN stays NaN (see vec.hpp on min/max). sigmoid = 1 / (1 + e^-x);
// tanh = 1 - 2 / (1 + e^2x), with an odd polynomial near 0 (no cancellation).
#pragma once

#include "kernels.hpp"
#include "vec.hpp"

namespace {

using i64 = int64_t;

inline Vec vexp(Vec x) {
    x = vmin(vset1(88.0f), vmax(vset1(-87.0f), x));
    const Vec n = vround(x * vset1(1.44269504088896341f));
    Vec r = vfnmadd(n, vset1(0.693359375f), x);
    r = vfnmadd(n, vset1(-2.12194440e-4f), r);
    Vec p = vset1(1.9875691500e-4f);
    p = vfmadd(p, r, vset1(1.3981999507e-3f));
    p = vfmadd(p, r, vset1(8.3334519073e-3f));
    p = vfmadd(p, r, vset1(4.1665795894e-2f));
    p = vfmadd(p, r, vset1(1.6666665459e-1f));
    p = vfmadd(p, r, vset1(5.0000001201e-1f));
    p = vfmadd(p, r * r, r + vset1(1.0f));
    return vscale2(p, n);
}

inline Vec vsigmoid(Vec x) {
    const Vec one = vset1(1.0f);
    return one / (one + vexp(vzero() - x));
}

inline Vec vtanh(Vec x) {
    const Vec one = vset1(1.0f);
    const Vec big = one - vset1(2.0f) / (one + vexp(x + x));
    const Vec x2 = x * x;
    Vec p = vset1(-17.0f / 315.0f);
    p = vfmadd(p, x2, vset1(2.0f / 15.0f));
    p = vfmadd(p, x2, vset1(-1.0f / 3.0f));
    p = vfmadd(p, x2, one);
    return vselect(vless(x2, vset1(0.0025f)), x * p, big);
}

// Loads and stores of `lanes` floats: a whole vector or its first lanes.
inline Vec ld(const float* p, i64 lanes) {
    return lanes == Vec::width ? vload(p) : vload_first(p, lanes);
}
inline void st(float* p, Vec a, i64 lanes) {
    if (lanes == Vec::width) {
        vstore(p, a);
    } else {
        vstore_first(p, a, lanes);
    }
}

// body(k, lanes) for k = 0, width, 2 width, ... < n.
template <class Body>
inline void for_vectors(i64 n, Body&& body) {
    for (i64 k = 0; k < n; k += Vec::width) {
        body(k, n - k < Vec::width ? n - k : Vec::width);
    }
}

float row_max(const float* x, i64 c) {
    const float inf = __builtin_inff();
    const Vec lo = vset1(-inf), hi = vset1(inf);
    Vec m = vset1(-inf);
    Mask nan = vmask_none();
    i64 k = 0;
    for (; k + Vec::width <= c; k += Vec::width) {
        const Vec v = vload(x + k);
        nan = vmask_or(nan, vout_of(v, lo, hi));  // only NaN is outside [-inf, inf]
        m = vmax(m, v);
    }
    float best = vhmax(m);
    bool any_nan = vany(nan);
    for (; k < c; ++k) {
        any_nan |= x[k] != x[k];
        best = x[k] > best ? x[k] : best;
    }
    return any_nan ? __builtin_nanf("") : best;
}

float row_sum_exp(const float* x, float m, i64 c) {
    const Vec vm = vset1(m);
    Vec acc = vzero();
    for_vectors(c, [&](i64 k, i64 lanes) {
        const Vec e = vexp(ld(x + k, lanes) - vm);
        acc = acc + (lanes == Vec::width ? e : vkeep_first(e, lanes));
    });
    return vsum(acc);
}

void row_grad(const float* x, float lse, float f, float* g, i64 c) {
    const Vec vl = vset1(lse), vf = vset1(f);
    for_vectors(c, [&](i64 k, i64 lanes) { st(g + k, vf * vexp(ld(x + k, lanes) - vl), lanes); });
}

void lstm_row_forward(float* g, const float* cp, float* c, float* h, float* y, i64 N) {
    for_vectors(N, [&](i64 k, i64 lanes) {
        const Vec i = vsigmoid(ld(g + k, lanes));
        const Vec f = vsigmoid(ld(g + N + k, lanes));
        const Vec a = vtanh(ld(g + 2 * N + k, lanes));
        const Vec o = vsigmoid(ld(g + 3 * N + k, lanes));
        st(g + k, i, lanes);
        st(g + N + k, f, lanes);
        st(g + 2 * N + k, a, lanes);
        st(g + 3 * N + k, o, lanes);
        const Vec cn = vfmadd(f, ld(cp + k, lanes), i * a);
        const Vec hn = o * vtanh(cn);
        st(c + k, cn, lanes);
        st(h + k, hn, lanes);
        st(y + k, hn, lanes);
    });
}

void lstm_row_backward(const float* g, const float* c, const float* cp, const float* dh,
                       const float* gy, float* dc, float* dg, i64 N) {
    const Vec one = vset1(1.0f);
    for_vectors(N, [&](i64 k, i64 lanes) {
        const Vec i = ld(g + k, lanes);
        const Vec f = ld(g + N + k, lanes);
        const Vec a = ld(g + 2 * N + k, lanes);
        const Vec o = ld(g + 3 * N + k, lanes);
        const Vec tc = vtanh(ld(c + k, lanes));
        const Vec hg = ld(dh + k, lanes) + ld(gy + k, lanes);
        const Vec dct = vfmadd(hg * o, vfnmadd(tc, tc, one), ld(dc + k, lanes));
        st(dg + k, (dct * a) * (i * (one - i)), lanes);
        st(dg + N + k, (dct * ld(cp + k, lanes)) * (f * (one - f)), lanes);
        st(dg + 2 * N + k, (dct * i) * vfnmadd(a, a, one), lanes);
        st(dg + 3 * N + k, (hg * tc) * (o * (one - o)), lanes);
        st(dc + k, dct * f, lanes);
    });
}

void gru_row_forward(float* g, const float* hw, const float* bhn, const float* h, float* hn,
                     float* hnew, i64 N) {
    const Vec one = vset1(1.0f);
    for_vectors(N, [&](i64 k, i64 lanes) {
        const Vec u = vsigmoid(ld(g + k, lanes) + ld(hw + k, lanes));
        const Vec r = vsigmoid(ld(g + N + k, lanes) + ld(hw + N + k, lanes));
        const Vec n = ld(hw + 2 * N + k, lanes) + ld(bhn + k, lanes);
        const Vec o = vtanh(ld(g + 2 * N + k, lanes) + r * n);
        st(g + k, u, lanes);
        st(g + N + k, r, lanes);
        st(g + 2 * N + k, o, lanes);
        st(hn + k, n, lanes);
        st(hnew + k, u * ld(h + k, lanes) + (one - u) * o, lanes);
    });
}

bool all_within(const float* p, i64 n, float low, float high) {
    const Vec lo = vset1(low), hi = vset1(high);
    constexpr i64 kBlock = 8 * Vec::width;  // a few cache lines between the exits
    i64 k = 0;
    for (; k + kBlock <= n; k += kBlock) {
        Mask out = vmask_none();
        for (i64 j = 0; j < kBlock; j += Vec::width) out = vmask_or(out, vout_of(vload(p + k + j), lo, hi));
        if (vany(out)) return false;
    }
    for (; k < n; ++k) {
        if (!(p[k] >= low && p[k] <= high)) return false;
    }
    return true;
}

// u ** -beta, lane by lane: r * sqrt(r) with r = 1 / sqrt(u) for beta = 3/4
// (AlexNet's and GoogLeNet's), else powf per lane.
inline Vec lrn_scale(Vec u, float beta) {
    if (beta == 0.75f) {
        const Vec r = vset1(1.0f) / vsqrt(u);
        return r * vsqrt(r);
    }
    float lanes[Vec::width];
    vstore(lanes, u);
    for (i64 j = 0; j < Vec::width; ++j) lanes[j] = __builtin_powf(lanes[j], -beta);
    return vload(lanes);
}

void lrn_backward_block(const float* x, const float* gy, float* gx, float* work, i64 c, i64 b,
                        i64 stride, i64 half, float alpha, float beta, float k) {
    float* sq = work;
    float* p = work + c * stride;
    float* t = work + 2 * c * stride;
    const Vec va = vset1(alpha), vk = vset1(k), two_ab = vset1(2.0f * alpha * beta);
    for (i64 ch = 0; ch < c; ++ch) {
        const float* xr = x + ch * stride;
        float* q = sq + ch * stride;
        for_vectors(b, [&](i64 i, i64 lanes) {
            const Vec v = ld(xr + i, lanes);
            st(q + i, v * v, lanes);
        });
    }
    for (i64 ch = 0; ch < c; ++ch) {
        const i64 lo = ch - half < 0 ? 0 : ch - half;
        const i64 hi = ch + half > c - 1 ? c - 1 : ch + half;
        const float* xr = x + ch * stride;
        const float* gr = gy + ch * stride;
        float* pr = p + ch * stride;
        float* tr = t + ch * stride;
        for_vectors(b, [&](i64 i, i64 lanes) {
            Vec w = vzero();
            for (i64 j = lo; j <= hi; ++j) w = w + ld(sq + j * stride + i, lanes);
            const Vec u = vk + va * w;
            const Vec scale = lrn_scale(u, beta);
            st(pr + i, scale, lanes);
            st(tr + i, ld(gr + i, lanes) * (ld(xr + i, lanes) * scale) / u, lanes);
        });
    }
    for (i64 ch = 0; ch < c; ++ch) {
        const i64 lo = ch - half < 0 ? 0 : ch - half;
        const i64 hi = ch + half > c - 1 ? c - 1 : ch + half;
        const float* xr = x + ch * stride;
        const float* gr = gy + ch * stride;
        const float* pr = p + ch * stride;
        float* out = gx + ch * stride;
        for_vectors(b, [&](i64 i, i64 lanes) {
            Vec w = vzero();
            for (i64 j = lo; j <= hi; ++j) w = w + ld(t + j * stride + i, lanes);
            st(out + i, ld(gr + i, lanes) * ld(pr + i, lanes) - two_ab * ld(xr + i, lanes) * w,
               lanes);
        });
    }
}

constexpr cpuframe::SimdKernels kTable = {row_max,          row_sum_exp,     row_grad,
                                          lstm_row_forward, lstm_row_backward, gru_row_forward,
                                          all_within,       lrn_backward_block};

}  // namespace

// Each unit exports its table under its own name (see CPUFRAME_SIMD_TABLE).
namespace cpuframe {
extern const SimdKernels CPUFRAME_SIMD_TABLE;
const SimdKernels CPUFRAME_SIMD_TABLE = kTable;
}  // namespace cpuframe
