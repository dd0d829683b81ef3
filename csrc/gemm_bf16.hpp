// Row-major GEMMs with bfloat16 operands and float32 accumulation and result,
// on oneDNN's matmul primitive: the mixed_bf16 routes of the LSTM layer and of
// L.LSTM's fused step (float32 GEMMs are sgemm, gemm.hpp).
//
// C (M x N, float32) = A' B' + beta C with A' = A or A^T as ta is 'N' or 'T'
// (likewise B'), beta 0 or 1 (a sum post-op). The right operand of a GEMM run
// many times with different M (a recurrence's steps: every step multiplies the
// same weights) is packed once into the blocked layout the primitive wants
// (PackedB); an unpacked one is repacked by oneDNN on every call.
//
// Conversions to bf16: bf16.hpp. Everything here runs with or without the GIL (execute_here):
// a recurrence's streams call it from worker threads.
#pragma once

#include <cstdint>
#include <cstring>

#include <oneapi/dnnl/dnnl.hpp>

#include "bf16.hpp"
#include "tensor.hpp"

namespace cpuframe {

// rows x n floats (src row stride lds) to bf16 (dst row stride ldd).
void to_bf16_rows(const float* src, std::int64_t lds, bf16_t* dst, std::int64_t ldd,
                  std::int64_t rows, std::int64_t n);
// The same, and src rounded in place to the bf16 values written.
void round_to_bf16_rows(float* src, std::int64_t lds, bf16_t* dst, std::int64_t ldd,
                        std::int64_t rows, std::int64_t n);

// op(X) (rows x cols) of a row-major buffer with leading dimension ld.
memory::desc gemm_md(char trans, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                     memory::data_type dt);

// A right operand B (K x N) in the bf16 layout the matmul wants; t holds it.
struct PackedB {
    std::int64_t K = 0, N = 0;
    memory::desc md;
    TensorPtr t;
};

// op(B) (K x N) of a row-major float32 or bf16 buffer (tb, ldb), packed for
// GEMMs of about m_hint rows (one conversion and reorder).
PackedB pack_b(char tb, std::int64_t K, std::int64_t N, const void* B, std::int64_t ldb,
               memory::data_type src_dt, std::int64_t m_hint);
// A weight Tensor W (rows x cols) packed as the right operand: W^T (K =
// cols, N = rows) with transpose, else W itself (K = rows, N = cols).
// Through W's kept bf16 copy in `slot` (Tensor::converted_for), so a weight
// not written since its last call is not converted again.
PackedB pack_weight(const TensorPtr& W, bool transpose, std::int64_t m_hint, int slot);

// C = A' B + beta C with B packed.
void gemm_bf16(char ta, std::int64_t M, const bf16_t* A, std::int64_t lda, const PackedB& B,
               float beta, float* C, std::int64_t ldc);
// C = A' B' + beta C with B' from a bf16 buffer.
void gemm_bf16(char ta, char tb, std::int64_t M, std::int64_t N, std::int64_t K, const bf16_t* A,
               std::int64_t lda, const bf16_t* B, std::int64_t ldb, float beta, float* C,
               std::int64_t ldc);

}  // namespace cpuframe
