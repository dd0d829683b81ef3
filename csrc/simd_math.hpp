// Vector math shared by our own kernels (the LSTM gates, softmax cross
// entropy): AVX-512 polynomials chosen at run time where the CPU has them.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#define CPUFRAME_HAVE_AVX512_KERNELS 1
#include <immintrin.h>

namespace cpuframe {

// Whether this CPU runs the AVX-512 kernels (checked once).
inline bool have_avx512() {
    static const bool yes = __builtin_cpu_supports("avx512f");
    return yes;
}

// exp with a Cephes-style polynomial (about 1 ulp), 2^n applied by scalef.
// The clamp keeps NaN: max/min return their second operand when one is NaN,
// so x goes second (NaN in, NaN out, as the NumPy path).
__attribute__((target("avx512f"))) inline __m512 exp16(__m512 x) {
    x = _mm512_min_ps(_mm512_set1_ps(88.0f), _mm512_max_ps(_mm512_set1_ps(-87.0f), x));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_scalef_ps(p, n);
}

}  // namespace cpuframe
#endif
