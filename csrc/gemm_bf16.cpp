// bfloat16 GEMMs on oneDNN's matmul: see gemm_bf16.hpp.
#include "gemm_bf16.hpp"

#include <string>

#include "engine.hpp"
#include "primitive_cache.hpp"

namespace cpuframe {

namespace {

using i64 = std::int64_t;
constexpr memory::data_type kBf16 = memory::data_type::bf16;
constexpr memory::data_type kF32 = memory::data_type::f32;

dnnl::matmul::primitive_desc matmul_pd(const memory::desc& a, const memory::desc& b,
                                       const memory::desc& c, float beta) {
    dnnl::primitive_attr attr = op_attr();
    if (beta != 0.0f) {
        dnnl::post_ops po;
        po.append_sum(beta);
        attr.set_post_ops(po);
    }
    return dnnl::matmul::primitive_desc(cpu_engine(), a, b, c, attr);
}

PrimitiveKey matmul_key(const memory::desc& a, const memory::desc& b, const memory::desc& c,
                        float beta) {
    PrimitiveKey key("matmul_bf16");
    key.text("a", desc_key(a)).text("b", desc_key(b)).text("c", desc_key(c)).scalar("beta", beta);
    return key;
}

void check_beta(float beta) {
    if (beta != 0.0f && beta != 1.0f) {
        throw std::invalid_argument("cpuframe internal error: gemm_bf16 takes beta 0 or 1");
    }
}

// The bf16 layout of B (K x N) that the matmul of m rows wants.
memory::desc packed_md(i64 K, i64 N, i64 m) {
    const memory::desc a = gemm_md('N', m, K, K, kBf16);
    const memory::desc b = memory::desc({K, N}, kBf16, memory::format_tag::any);
    const memory::desc c = gemm_md('N', m, N, N, kF32);
    dnnl::primitive p = PrimitiveCache::global().get_or_create(
        matmul_key(a, b, c, 0.0f), [&] { return dnnl::matmul(matmul_pd(a, b, c, 0.0f)); });
    return query_md(p, dnnl::query::weights_md);
}

void run(const dnnl::primitive& p, const memory::desc& a, const void* A, const memory& b,
         const memory::desc& c, float* C) {
    execute_here(p, {{DNNL_ARG_SRC, memory(a, cpu_engine(), const_cast<void*>(A))},
                     {DNNL_ARG_WEIGHTS, b},
                     {DNNL_ARG_DST, memory(c, cpu_engine(), C)}});
}

}  // namespace

void to_bf16_rows(const float* src, i64 lds, bf16_t* dst, i64 ldd, i64 rows, i64 n) {
    for (i64 r = 0; r < rows; ++r) {
        const float* s = src + r * lds;
        bf16_t* d = dst + r * ldd;
        for (i64 k = 0; k < n; ++k) d[k] = to_bf16(s[k]);
    }
}

void round_to_bf16_rows(float* src, i64 lds, bf16_t* dst, i64 ldd, i64 rows, i64 n) {
    for (i64 r = 0; r < rows; ++r) {
        float* s = src + r * lds;
        bf16_t* d = dst + r * ldd;
        for (i64 k = 0; k < n; ++k) {
            d[k] = to_bf16(s[k]);
            s[k] = from_bf16(d[k]);
        }
    }
}

memory::desc gemm_md(char trans, i64 rows, i64 cols, i64 ld, memory::data_type dt) {
    const memory::dims strides = trans == 'N' ? memory::dims{ld, 1} : memory::dims{1, ld};
    return memory::desc({rows, cols}, dt, strides);
}

PackedB pack_b(char tb, i64 K, i64 N, const void* B, i64 ldb, memory::data_type src_dt,
               i64 m_hint) {
    PackedB p;
    p.K = K;
    p.N = N;
    p.md = packed_md(K, N, m_hint);
    p.t = Tensor::empty(p.md, {K, N});
    reorder_memory(memory(gemm_md(tb, K, N, ldb, src_dt), cpu_engine(), const_cast<void*>(B)),
                   p.t->mem());
    return p;
}

PackedB pack_weight(const TensorPtr& W, bool transpose, i64 m_hint, int slot) {
    const i64 rows = W->shape()[0], cols = W->shape()[1];
    PackedB p;
    p.K = transpose ? cols : rows;
    p.N = transpose ? rows : cols;
    p.md = packed_md(p.K, p.N, m_hint);
    // transposed: the same bytes seen with W's dims (rows x cols)
    p.t = W->converted_for(transpose ? p.md.permute_axes({1, 0}) : p.md, slot);
    return p;
}

void gemm_bf16(char ta, i64 M, const bf16_t* A, i64 lda, const PackedB& B, float beta, float* C,
               i64 ldc) {
    check_beta(beta);
    if (M == 0 || B.N == 0) return;
    const memory::desc a = gemm_md(ta, M, B.K, lda, kBf16);
    const memory::desc c = gemm_md('N', M, B.N, ldc, kF32);
    dnnl::primitive p = PrimitiveCache::global().get_or_none(
        matmul_key(a, B.md, c, beta), [&] { return dnnl::matmul(matmul_pd(a, B.md, c, beta)); });
    if (!p) {
        // No kernel of this M reads that layout: B unpacked for this call.
        TensorPtr plain = Tensor::empty(plain_desc({B.K, B.N}, kBf16), {B.K, B.N});
        reorder_memory(memory(B.md, cpu_engine(), B.t->data()), plain->mem());
        gemm_bf16(ta, 'N', M, B.N, B.K, A, lda, static_cast<const bf16_t*>(plain->data()), B.N,
                  beta, C, ldc);
        return;
    }
    run(p, a, A, memory(B.md, cpu_engine(), B.t->data()), c, C);
}

void gemm_bf16(char ta, char tb, i64 M, i64 N, i64 K, const bf16_t* A, i64 lda, const bf16_t* B,
               i64 ldb, float beta, float* C, i64 ldc) {
    check_beta(beta);
    if (M == 0 || N == 0) return;
    const memory::desc a = gemm_md(ta, M, K, lda, kBf16);
    const memory::desc b = gemm_md(tb, K, N, ldb, kBf16);
    const memory::desc c = gemm_md('N', M, N, ldc, kF32);
    dnnl::primitive p = PrimitiveCache::global().get_or_create(
        matmul_key(a, b, c, beta), [&] { return dnnl::matmul(matmul_pd(a, b, c, beta)); });
    run(p, a, A, memory(b, cpu_engine(), const_cast<bf16_t*>(B)), c, C);
}

}  // namespace cpuframe
