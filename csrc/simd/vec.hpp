// One SIMD vector of floats, for the ISA this translation unit is compiled
// for: AVX-512 (16 lanes) when built with -mavx512f, AVX2 + FMA (8 lanes)
// with -mavx2 -mfma, else one plain float. The kernels in kernels_impl.hpp are
// written once against this interface and compiled once per ISA
// (kernels_avx512.cpp, kernels_avx2.cpp, kernels_scalar.cpp); dispatch.cpp
// picks one at run time.
//
// Only compiler builtins and <immintrin.h> (whose functions are always
// inlined) may be included here: an out-of-line inline function from another
// header, compiled with -mavx512f in one unit, could be the copy the linker
// keeps for the whole module, and then run on a CPU without AVX-512.
//
// min/max keep NaN the way the kernels need it: min(a, x) and max(a, x) return
// x when x is NaN (the x86 rule: the second operand wins when either is NaN).
#pragma once

#include <stdint.h>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace {

#if defined(__AVX512F__)

struct Vec {
    __m512 v;
    static constexpr int64_t width = 16;
};
struct Mask {
    __mmask16 m;
};
inline Vec vset1(float a) { return {_mm512_set1_ps(a)}; }
inline Vec vzero() { return {_mm512_setzero_ps()}; }
inline Vec vload(const float* p) { return {_mm512_loadu_ps(p)}; }
inline void vstore(float* p, Vec a) { _mm512_storeu_ps(p, a.v); }
// The first n (< width) lanes; the others read as 0 and are not written.
inline __mmask16 first_lanes(int64_t n) { return static_cast<__mmask16>((1u << n) - 1u); }
inline Vec vload_first(const float* p, int64_t n) { return {_mm512_maskz_loadu_ps(first_lanes(n), p)}; }
inline void vstore_first(float* p, Vec a, int64_t n) { _mm512_mask_storeu_ps(p, first_lanes(n), a.v); }
inline Vec vkeep_first(Vec a, int64_t n) { return {_mm512_maskz_mov_ps(first_lanes(n), a.v)}; }
inline Vec operator+(Vec a, Vec b) { return {_mm512_add_ps(a.v, b.v)}; }
inline Vec operator-(Vec a, Vec b) { return {_mm512_sub_ps(a.v, b.v)}; }
inline Vec operator*(Vec a, Vec b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline Vec operator/(Vec a, Vec b) { return {_mm512_div_ps(a.v, b.v)}; }
inline Vec vsqrt(Vec a) { return {_mm512_sqrt_ps(a.v)}; }
inline Vec vfmadd(Vec a, Vec b, Vec c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }   // a*b + c
inline Vec vfnmadd(Vec a, Vec b, Vec c) { return {_mm512_fnmadd_ps(a.v, b.v, c.v)}; } // c - a*b
inline Vec vmin(Vec a, Vec x) { return {_mm512_min_ps(a.v, x.v)}; }
inline Vec vmax(Vec a, Vec x) { return {_mm512_max_ps(a.v, x.v)}; }
inline Vec vround(Vec a) {
    return {_mm512_roundscale_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
}
// p * 2^n for integral n in [-126, 127] (NaN n gives NaN).
inline Vec vscale2(Vec p, Vec n) { return {_mm512_scalef_ps(p.v, n.v)}; }
inline Mask vless(Vec a, Vec b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
// m ? a : b, lane by lane.
inline Vec vselect(Mask m, Vec a, Vec b) { return {_mm512_mask_blend_ps(m.m, b.v, a.v)}; }
inline float vsum(Vec a) { return _mm512_reduce_add_ps(a.v); }
inline float vhmax(Vec a) { return _mm512_reduce_max_ps(a.v); }
// Lanes where x lies outside [lo, hi] or is NaN.
inline Mask vout_of(Vec x, Vec lo, Vec hi) {
    return {static_cast<__mmask16>(_mm512_cmp_ps_mask(x.v, lo.v, _CMP_NGE_UQ) |
                                   _mm512_cmp_ps_mask(x.v, hi.v, _CMP_NLE_UQ))};
}
inline Mask vmask_or(Mask a, Mask b) { return {static_cast<__mmask16>(a.m | b.m)}; }
inline Mask vmask_none() { return {0}; }
inline bool vany(Mask a) { return a.m != 0; }

#elif defined(__AVX2__) && defined(__FMA__)

struct Vec {
    __m256 v;
    static constexpr int64_t width = 8;
};
struct Mask {
    __m256 m;
};
inline Vec vset1(float a) { return {_mm256_set1_ps(a)}; }
inline Vec vzero() { return {_mm256_setzero_ps()}; }
inline Vec vload(const float* p) { return {_mm256_loadu_ps(p)}; }
inline void vstore(float* p, Vec a) { _mm256_storeu_ps(p, a.v); }
inline __m256i first_lanes(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline Vec vload_first(const float* p, int64_t n) { return {_mm256_maskload_ps(p, first_lanes(n))}; }
inline void vstore_first(float* p, Vec a, int64_t n) { _mm256_maskstore_ps(p, first_lanes(n), a.v); }
inline Vec vkeep_first(Vec a, int64_t n) {
    return {_mm256_and_ps(a.v, _mm256_castsi256_ps(first_lanes(n)))};
}
inline Vec operator+(Vec a, Vec b) { return {_mm256_add_ps(a.v, b.v)}; }
inline Vec operator-(Vec a, Vec b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline Vec operator*(Vec a, Vec b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline Vec operator/(Vec a, Vec b) { return {_mm256_div_ps(a.v, b.v)}; }
inline Vec vsqrt(Vec a) { return {_mm256_sqrt_ps(a.v)}; }
inline Vec vfmadd(Vec a, Vec b, Vec c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
inline Vec vfnmadd(Vec a, Vec b, Vec c) { return {_mm256_fnmadd_ps(a.v, b.v, c.v)}; }
inline Vec vmin(Vec a, Vec x) { return {_mm256_min_ps(a.v, x.v)}; }
inline Vec vmax(Vec a, Vec x) { return {_mm256_max_ps(a.v, x.v)}; }
inline Vec vround(Vec a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)}; }
// 2^n built in the exponent field. NaN n converts to INT_MIN, whose
// exponent field after the shift is 127 (2^0): NaN p stays NaN.
inline Vec vscale2(Vec p, Vec n) {
    const __m256i e = _mm256_slli_epi32(
        _mm256_add_epi32(_mm256_cvtps_epi32(n.v), _mm256_set1_epi32(127)), 23);
    return {_mm256_mul_ps(p.v, _mm256_castsi256_ps(e))};
}
inline Mask vless(Vec a, Vec b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
inline Vec vselect(Mask m, Vec a, Vec b) { return {_mm256_blendv_ps(b.v, a.v, m.m)}; }
inline float vsum(Vec a) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
inline float vhmax(Vec a) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
inline Mask vout_of(Vec x, Vec lo, Vec hi) {
    return {_mm256_or_ps(_mm256_cmp_ps(x.v, lo.v, _CMP_NGE_UQ),
                         _mm256_cmp_ps(x.v, hi.v, _CMP_NLE_UQ))};
}
inline Mask vmask_or(Mask a, Mask b) { return {_mm256_or_ps(a.m, b.m)}; }
inline Mask vmask_none() { return {_mm256_setzero_ps()}; }
inline bool vany(Mask a) { return _mm256_movemask_ps(a.m) != 0; }

#else

struct Vec {
    float v;
    static constexpr int64_t width = 1;
};
struct Mask {
    bool m;
};
inline Vec vset1(float a) { return {a}; }
inline Vec vzero() { return {0.0f}; }
inline Vec vload(const float* p) { return {*p}; }
inline void vstore(float* p, Vec a) { *p = a.v; }
// width 1: the kernels never have a partial vector.
inline Vec vload_first(const float* p, int64_t) { return {*p}; }
inline void vstore_first(float* p, Vec a, int64_t) { *p = a.v; }
inline Vec vkeep_first(Vec a, int64_t) { return a; }
inline Vec operator+(Vec a, Vec b) { return {a.v + b.v}; }
inline Vec operator-(Vec a, Vec b) { return {a.v - b.v}; }
inline Vec operator*(Vec a, Vec b) { return {a.v * b.v}; }
inline Vec operator/(Vec a, Vec b) { return {a.v / b.v}; }
inline Vec vsqrt(Vec a) { return {__builtin_sqrtf(a.v)}; }
// Unfused: without -mfma, fmaf is a library call.
inline Vec vfmadd(Vec a, Vec b, Vec c) { return {a.v * b.v + c.v}; }
inline Vec vfnmadd(Vec a, Vec b, Vec c) { return {c.v - a.v * b.v}; }
inline Vec vmin(Vec a, Vec x) { return {a.v < x.v ? a.v : x.v}; }
inline Vec vmax(Vec a, Vec x) { return {a.v > x.v ? a.v : x.v}; }
inline Vec vround(Vec a) { return {__builtin_rintf(a.v)}; }
inline Vec vscale2(Vec p, Vec n) {
    if (n.v != n.v) return {n.v};
    const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n.v) + 127) << 23;
    float s;
    __builtin_memcpy(&s, &bits, sizeof s);
    return {p.v * s};
}
inline Mask vless(Vec a, Vec b) { return {a.v < b.v}; }
inline Vec vselect(Mask m, Vec a, Vec b) { return m.m ? a : b; }
inline float vsum(Vec a) { return a.v; }
inline float vhmax(Vec a) { return a.v; }
inline Mask vout_of(Vec x, Vec lo, Vec hi) { return {!(x.v >= lo.v && x.v <= hi.v)}; }
inline Mask vmask_or(Mask a, Mask b) { return {a.m || b.m}; }
inline Mask vmask_none() { return {false}; }
inline bool vany(Mask a) { return a.m; }

#endif

}  // namespace
