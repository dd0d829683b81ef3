// -- GRU layers in the mixed_bf16 mode, on our own kernels ---------------------------
//
// Chainer's GRU is oneDNN's linear-before-reset GRU (gates u, r, o):
//     u = sigmoid(xw_u + hw_u),  r = sigmoid(xw_r + hw_r),
//     o = tanh(xw_o + r * (hw_o + b_hn)),  h' = u h + (1 - u) o
// with xw = x W_layer^T + b (all steps in one GEMM) and hw = h W_iter^T (one
// GEMM per step over the B_t rows still running, as the LSTM layer does,
// lstm_layer.hpp). In float32 GRU layers run on oneDNN's RNN primitives
// (rnn_primitives.hpp); in mixed_bf16 on this file, whose rounding points the
// NumPy reference (cpuframe/functions/rnn/_rnn_bf16.py) has exactly: the
// GEMMs read bf16 (x, h_{t-1}, the weights packed once per call) and
// accumulate in float32; the gates and h' are computed in float32 from the
// float32 h (hx unrounded), and h' is rounded to bf16 (state, y, hy);
// backward, the gates' gradients are rounded for the GEMMs, the bias
// gradients sum them in float32. One direction is one single-threaded stream
// (the two directions of a layer run side by side); the GEMMs over all steps
// run on the team.
#pragma once

#include <vector>

#include "gemm_bf16.hpp"
#include "rnn_common.hpp"
#include "tensor.hpp"

namespace cpuframe::rnn {

struct GruDir {
    bool reverse = false;
    TensorPtr xb;                      // (R, C) bf16
    TensorPtr wl, wi, bias, hx;        // (3N, C), (3N, N), (4, N), (B, N) float32
    PackedB wl_fwd, wi_fwd;            // W_layer^T, W_iter^T
    TensorPtr gates;                   // (R, 3N): u, r, o (activated)
    TensorPtr hn;                      // (R, N): hw_o + b_hn
    TensorPtr hprev, hprev_b;          // (R, N): h_{t-1} float32 and bf16
    TensorPtr hy;                      // (B, N)
};

struct GruLayer : PackedSteps {
    TensorPtr y;                       // (R, D * N) bf16
    std::vector<GruDir> dirs;
};

// Packs the weights, then the input GEMM and the recurrence of direction d.
void gru_forward(GruLayer& L, GruDir& s, i64 d);

struct GruGrads {
    TensorPtr gx, ghx, gwl, gwi, gb;   // gx may be null (not wanted)
    TensorPtr dgx, dgh;                // (R, 3N): the gates' gradients, x side and h side
    TensorPtr dgx_b, dgh_b;            // the same in bf16
    PackedB wi_bwd, wl_bwd;
};

// The gradients of direction d given gy (R, D * N) and ghy (in out.ghx on
// entry).
void gru_backward(const GruLayer& L, const GruDir& s, i64 d, const float* gy, GruGrads& out);

}  // namespace cpuframe::rnn
