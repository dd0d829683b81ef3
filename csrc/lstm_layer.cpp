// LSTM layers on our own kernels: see lstm_layer.hpp.
#include "lstm_layer.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "gemm.hpp"
#include "simd/kernels.hpp"

namespace cpuframe::rnn {

namespace {

void lstm_row_forward(float* g, const float* cp, float* c, float* h, float* y, i64 N) {
    simd_kernels().lstm_row_forward(g, cp, c, h, y, N);
}

void lstm_row_backward(const float* g, const float* c, const float* cp, const float* dh,
                       const float* gy, float* dc, float* dg, i64 N) {
    simd_kernels().lstm_row_backward(g, c, cp, dh, gy, dc, dg, N);
}

// Rows of a step's gate pass run on the team when the step is large enough.
constexpr i64 parallel_rows_floats = i64{1} << 13;

template <class Row>
void for_rows(i64 rows, i64 N, int threads, Row&& row) {
#if defined(CPUFRAME_HAVE_OPENMP)
    if (threads > 1 && rows > 1 && rows * N >= parallel_rows_floats) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (i64 j = 0; j < rows; ++j) row(j);
        return;
    }
#else
    (void)threads;
#endif
    for (i64 j = 0; j < rows; ++j) row(j);
}

}  // namespace

void transpose(const float* src, i64 rows, i64 cols, float* dst) {
    constexpr i64 tile = 32;
    for (i64 r0 = 0; r0 < rows; r0 += tile) {
        const i64 r1 = std::min(rows, r0 + tile);
        for (i64 c0 = 0; c0 < cols; c0 += tile) {
            const i64 c1 = std::min(cols, c0 + tile);
            for (i64 r = r0; r < r1; ++r) {
                for (i64 c = c0; c < c1; ++c) dst[c * rows + r] = src[r * cols + c];
            }
        }
    }
}

std::vector<i64> part_bounds(const std::vector<i64>& batches, i64 P) {
    const i64 B0 = batches[0];
    std::vector<i64> steps(static_cast<std::size_t>(B0), 0);  // steps of each sequence
    i64 total = 0;
    for (i64 b : batches) {
        for (i64 j = 0; j < b; ++j) steps[static_cast<std::size_t>(j)] += 1;
        total += b;
    }
    std::vector<i64> bounds{0};
    i64 acc = 0;
    for (i64 j = 0; j + 1 < B0 && static_cast<i64>(bounds.size()) < P; ++j) {
        acc += steps[static_cast<std::size_t>(j)];
        if (acc * P >= total * static_cast<i64>(bounds.size())) bounds.push_back(j + 1);
    }
    bounds.push_back(B0);
    return bounds;
}

void lstm_input_gemm(const LstmLayer& L, const LstmDir& s) {
    const i64 G = 4 * L.N;
    float* g = fptr(s.gates);
    const float* bias = fptr(s.bias);
    for (i64 r = 0; r < L.R; ++r) std::memcpy(g + r * G, bias, G * sizeof(float));
    if (L.bf16) {
        gemm_bf16('N', L.R, bptr(s.xb), L.C, s.wl_fwd, 1.0f, g, G);
        return;
    }
    sgemm('N', 'T', L.R, G, L.C, fptr(s.x), L.C, fptr(s.wl), L.C, 1.0f, g, G);
}

void lstm_steps_forward(const LstmLayer& L, LstmDir& s, i64 d, i64 lo, i64 hi, int threads) {
    const i64 N = L.N, G = 4 * N, ldy = L.D * N;
    const i64 T = static_cast<i64>(L.batches.size());
    float* g = fptr(s.gates);
    float* h = fptr(s.hy);
    float* c = fptr(s.cy);
    float* y = L.bf16 ? nullptr : fptr(L.y) + d * N;
    for (i64 step = 0; step < T; ++step) {
        const i64 t = s.reverse ? T - 1 - step : step;
        const i64 b = std::min(L.batches[t], hi) - lo;
        if (b <= 0) continue;
        const i64 r = L.offsets[t] + lo;  // this part's first packed row of step t
        float* cp = fptr(s.cprev) + r * N;
        copy_rows(cp, c + lo * N, b, N);
        float* gt = g + r * G;
        if (L.bf16) {
            bf16_t* hp = bptr(s.hprev_b) + r * N;
            to_bf16_rows(h + lo * N, N, hp, N, b, N);
            gemm_bf16('N', b, hp, N, s.wi_fwd, 1.0f, gt, G);
        } else {
            float* hp = fptr(s.hprev) + r * N;
            copy_rows(hp, h + lo * N, b, N);
            sgemm('N', 'N', b, G, N, hp, N, fptr(s.wi_t), G, 1.0f, gt, G);
        }
        float* ct = fptr(s.cs) + r * N;
        for_rows(b, N, threads, [&](i64 j) {
            // bf16: y is written below (h rounded); the kernel writes h twice
            float* hj = h + (lo + j) * N;
            lstm_row_forward(gt + j * G, cp + j * N, ct + j * N, hj,
                             L.bf16 ? hj : y + (r + j) * ldy, N);
        });
        if (L.bf16) round_to_bf16_rows(h + lo * N, N, bptr(L.y) + r * ldy + d * N, ldy, b, N);
        copy_rows(c + lo * N, ct, b, N);
    }
}

void lstm_steps_backward(const LstmLayer& L, const LstmDir& s, i64 d, const float* gy,
                         LstmGrads& out, i64 lo, i64 hi, int threads) {
    const i64 N = L.N, G = 4 * N, ldy = L.D * N;
    const i64 T = static_cast<i64>(L.batches.size());
    float* dh = fptr(out.ghx);
    float* dc = fptr(out.gcx);
    float* dg = fptr(out.dgates);
    const float* g = fptr(s.gates);
    const float* gyd = gy + d * N;
    for (i64 step = 0; step < T; ++step) {
        const i64 t = s.reverse ? step : T - 1 - step;
        const i64 b = std::min(L.batches[t], hi) - lo;
        if (b <= 0) continue;
        const i64 r = L.offsets[t] + lo;
        const float* ct = fptr(s.cs) + r * N;
        const float* cp = fptr(s.cprev) + r * N;
        for_rows(b, N, threads, [&](i64 j) {
            lstm_row_backward(g + (r + j) * G, ct + j * N, cp + j * N, dh + (lo + j) * N,
                              gyd + (r + j) * ldy, dc + (lo + j) * N, dg + (r + j) * G, N);
        });
        if (L.bf16) {
            bf16_t* dgb = bptr(out.dgates_b) + r * G;
            to_bf16_rows(dg + r * G, G, dgb, G, b, G);
            gemm_bf16('N', b, dgb, G, out.wi_bwd, 0.0f, dh + lo * N, N);
        } else {
            sgemm('N', 'N', b, N, G, dg + r * G, G, fptr(s.wi), N, 0.0f, dh + lo * N, N);
        }
    }
}

void lstm_prepare_backward(const LstmLayer& L, const LstmDir& s, LstmGrads& out) {
    if (!L.bf16) return;
    const i64 N = L.N, G = 4 * N;
    out.dgates_b = Tensor::empty(plain_desc({L.R, G}, memory::data_type::bf16), {L.R, G});
    out.wi_bwd = pack_b('N', G, N, fptr(s.wi), N, f32, L.bounds[1] - L.bounds[0]);
    if (out.gx) out.wl_bwd = pack_b('N', G, L.C, fptr(s.wl), L.C, f32, L.R);
}

void lstm_weight_grads(const LstmLayer& L, const LstmDir& s, LstmGrads& out) {
    const i64 N = L.N, C = L.C, R = L.R, G = 4 * N;
    const float* dg = fptr(out.dgates);
    if (L.bf16) {
        const bf16_t* dgb = bptr(out.dgates_b);
        gemm_bf16('T', 'N', G, C, R, dgb, G, bptr(s.xb), C, 0.0f, fptr(out.gwl), C);
        gemm_bf16('T', 'N', G, N, R, dgb, G, bptr(s.hprev_b), N, 0.0f, fptr(out.gwi), N);
    } else {
        sgemm('T', 'N', G, C, R, dg, G, fptr(s.x), C, 0.0f, fptr(out.gwl), C);
        sgemm('T', 'N', G, N, R, dg, G, fptr(s.hprev), N, 0.0f, fptr(out.gwi), N);
    }
    float* gb = fptr(out.gb);
    std::fill(gb, gb + G, 0.0f);
    for (i64 r = 0; r < R; ++r) {
        const float* row = dg + r * G;
        for (i64 k = 0; k < G; ++k) gb[k] += row[k];
    }
    if (!out.gx) return;
    if (L.bf16) {
        gemm_bf16('N', R, bptr(out.dgates_b), G, out.wl_bwd, 0.0f, fptr(out.gx), C);
    } else {
        sgemm('N', 'N', R, C, G, dg, G, fptr(s.wl), C, 0.0f, fptr(out.gx), C);
    }
}

}  // namespace cpuframe::rnn
