// GRU layers in the mixed_bf16 mode: see gru_layer.hpp.
#include "gru_layer.hpp"

#include <algorithm>
#include <cstring>

#include "simd/kernels.hpp"

namespace cpuframe::rnn {

namespace {

// Step t of a direction: its first packed row and its rows, in the order the
// direction runs (backward in time for reverse).
template <class Body>
void for_steps(const GruLayer& L, bool reverse, bool backward, Body&& body) {
    const i64 T = static_cast<i64>(L.batches.size());
    for (i64 k = 0; k < T; ++k) {
        const bool late_first = reverse != backward;
        const i64 t = late_first ? T - 1 - k : k;
        body(L.offsets[t], L.batches[t]);
    }
}

}  // namespace

void gru_forward(GruLayer& L, GruDir& s, i64 d) {
    const i64 N = L.N, G = 3 * N, ldy = L.D * N;
    s.wl_fwd = pack_b('T', L.C, G, fptr(s.wl), L.C, f32, L.R);
    s.wi_fwd = pack_b('T', N, G, fptr(s.wi), N, f32, L.batches[0]);
    float* g = fptr(s.gates);
    const float* bias = fptr(s.bias);  // rows u, r, o (x side), b_hn
    gemm_bf16('N', L.R, bptr(s.xb), L.C, s.wl_fwd, 0.0f, g, G);
    for (i64 r = 0; r < L.R; ++r) {
        float* row = g + r * G;
        for (i64 k = 0; k < G; ++k) row[k] += bias[k];
    }
    float* h = fptr(s.hy);
    copy_rows(h, fptr(s.hx), L.B, N);
    std::vector<float> hw(static_cast<std::size_t>(L.batches[0] * G));
    std::vector<float> hnew(static_cast<std::size_t>(N));
    const float* bhn = bias + G;
    bf16_t* y = bptr(L.y) + d * N;
    for_steps(L, s.reverse, false, [&](i64 r0, i64 b) {
        float* hp = fptr(s.hprev) + r0 * N;
        bf16_t* hpb = bptr(s.hprev_b) + r0 * N;
        copy_rows(hp, h, b, N);
        to_bf16_rows(h, N, hpb, N, b, N);
        gemm_bf16('N', b, hpb, N, s.wi_fwd, 0.0f, hw.data(), G);
        for (i64 j = 0; j < b; ++j) {
            float* hj = h + j * N;
            simd_kernels().gru_row_forward(g + (r0 + j) * G, hw.data() + j * G, bhn, hj,
                                           fptr(s.hn) + (r0 + j) * N, hnew.data(), N);
            // h' rounded: the state, y
            round_to_bf16_rows(hnew.data(), N, y + (r0 + j) * ldy, ldy, 1, N);
            std::memcpy(hj, hnew.data(), static_cast<std::size_t>(N) * sizeof(float));
        }
    });
}

void gru_backward(const GruLayer& L, const GruDir& s, i64 d, const float* gy, GruGrads& out) {
    const i64 N = L.N, G = 3 * N, ldy = L.D * N, R = L.R, C = L.C;
    out.wi_bwd = pack_b('N', G, N, fptr(s.wi), N, f32, L.batches[0]);
    if (out.gx) out.wl_bwd = pack_b('N', G, C, fptr(s.wl), C, f32, R);
    float* dh = fptr(out.ghx);  // holds ghy on entry
    float* dgx = fptr(out.dgx);
    float* dgh = fptr(out.dgh);
    bf16_t* dghb = bptr(out.dgh_b);
    const float* g = fptr(s.gates);
    const float* gyd = gy + d * N;
    for_steps(L, s.reverse, true, [&](i64 r0, i64 b) {
        for (i64 j = 0; j < b; ++j) {
            const i64 row = r0 + j;
            const float* gr = g + row * G;
            const float* hn = fptr(s.hn) + row * N;
            const float* hp = fptr(s.hprev) + row * N;
            float* dx = dgx + row * G;
            float* dhh = dgh + row * G;
            float* dhj = dh + j * N;
            for (i64 k = 0; k < N; ++k) {
                const float u = gr[k], rr = gr[N + k], o = gr[2 * N + k];
                const float dht = dhj[k] + gyd[row * ldy + k];
                const float du = dht * (hp[k] - o) * u * (1.0f - u);
                const float dout = dht * (1.0f - u) * (1.0f - o * o);
                const float dr = dout * hn[k] * rr * (1.0f - rr);
                dx[k] = du;
                dx[N + k] = dr;
                dx[2 * N + k] = dout;
                dhh[k] = du;
                dhh[N + k] = dr;
                dhh[2 * N + k] = dout * rr;
                dhj[k] = dht * u;  // the direct path; the GEMM adds the rest
            }
        }
        to_bf16_rows(dgh + r0 * G, G, dghb + r0 * G, G, b, G);
        gemm_bf16('N', b, dghb + r0 * G, G, out.wi_bwd, 1.0f, dh, N);
    });
    to_bf16_rows(dgx, G, bptr(out.dgx_b), G, R, G);
    gemm_bf16('T', 'N', G, C, R, bptr(out.dgx_b), G, bptr(s.xb), C, 0.0f, fptr(out.gwl), C);
    gemm_bf16('T', 'N', G, N, R, dghb, G, bptr(s.hprev_b), N, 0.0f, fptr(out.gwi), N);
    float* gb = fptr(out.gb);  // rows u, r, o (x side), b_hn
    std::fill(gb, gb + 4 * N, 0.0f);
    for (i64 r = 0; r < R; ++r) {
        for (i64 k = 0; k < G; ++k) gb[k] += dgx[r * G + k];
        for (i64 k = 0; k < N; ++k) gb[G + k] += dgh[r * G + 2 * N + k];
    }
    if (out.gx) gemm_bf16('N', R, bptr(out.dgx_b), G, out.wl_bwd, 0.0f, fptr(out.gx), C);
}

}  // namespace cpuframe::rnn
