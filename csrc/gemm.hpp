// Row-major single-precision GEMM on oneDNN's sgemm (its OpenMP team):
// C = A' B' + beta C with A' = A or A^T as ta is 'N' or 'T' (likewise B').
// beta = 1 accumulates into C: the weight gradients of a layer used at every
// step of an unrolled RNN are summed in the GEMM that computes them (see
// linear_backward_weights and lstm_step_backward) instead of being written
// out whole and added afterwards.
#pragma once

#include <cstdint>

#include <oneapi/dnnl/dnnl.hpp>

namespace cpuframe {

inline void sgemm(char ta, char tb, std::int64_t M, std::int64_t N, std::int64_t K,
                  const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float beta,
                  float* C, std::int64_t ldc) {
    if (M == 0 || N == 0) return;
    const dnnl::status st = dnnl::sgemm(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
    if (st != dnnl::status::success) {
        throw dnnl::error(static_cast<dnnl_status_t>(st), "sgemm failed");
    }
}

}  // namespace cpuframe
