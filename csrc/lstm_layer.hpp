// -- LSTM layers on our own kernels ------------------------------------------------
//
// An LSTM layer is one big GEMM for the input side of all steps, a small GEMM
// plus a fused gate pass per step, and, for the gradients, one per-step GEMM
// plus three big GEMMs over all steps at the end (weights of both sides and
// the input's gradient). Unlike the primitive, which works per segment of
// constant batch (dozens of segments for variable lengths, each with its own
// small layer GEMMs), this takes the packed rows as they are: step t simply
// updates the first B_t rows of the state, the other rows keeping their state
// (forwards: sequences that ended; backwards in time: sequences that have not
// started, which still hold hx). Gradients flow the same way, so the result
// is exact for every sequence. The weights are used as the caller stacks
// them, (4N, C) and (4N, N) with the gates i, f, c~, o: the input GEMM takes
// W_layer transposed as it is, the steps' GEMMs a transposed copy of W_iter
// made per call (a transposed B operand is much slower in a small-M sgemm),
// the backward GEMMs both as they are. Nothing derived from the weights
// outlives the call, so an in-place update is always seen. Activations use
// csrc/simd polynomials (exp about 1 ulp), AVX-512, AVX2 or scalar as the CPU allows.
// Threads: see LstmLayer.
//
// mixed_bf16 (LstmLayer::bf16): the GEMMs read bf16 operands and accumulate
// in float32 (gemm_bf16.hpp): x, h_{t-1} and the weights rounded to bf16
// forward; backward the gates' gradients too (for the GEMMs only). The gates,
// the cell state, the bias and its gradient stay float32; h_t is rounded to
// bf16 as it is computed (the state carried to the next step, y, hy), and y
// is stored as bf16. The weights are packed into the matmul's layout once per
// call. cpuframe/functions/rnn/_rnn_bf16.py is the NumPy reference of
// exactly this.
#pragma once

#include <vector>

#include "gemm_bf16.hpp"
#include "rnn_common.hpp"
#include "tensor.hpp"

namespace cpuframe::rnn {

// One direction of an LSTM layer: its inputs and what backward needs.
struct LstmDir {
    bool reverse = false;
    TensorPtr x, wl, wi, bias, hx, cx;  // (R, C), (4N, C), (4N, N), (4, N), (B, N) x2
    TensorPtr wi_t;                     // (N, 4N): W_iter transposed for the steps' GEMMs
    TensorPtr gates, cs, hprev, cprev;  // (R, 4N) activated gates; (R, N): c_t, h_{t-1}, c_{t-1}
    TensorPtr hy, cy;                   // (B, N)
    // mixed_bf16: x and h_{t-1} as bf16 (hprev unused), W_layer^T and
    // W_iter^T packed for the forward GEMMs (wi_t unused)
    TensorPtr xb, hprev_b;              // (R, C), (R, N)
    PackedB wl_fwd, wi_fwd;
};

// The fewest sequences a part of an LSTM layer gets (see rnn_forward).
constexpr i64 kLstmMinPartRows = 32;

// The sequences (state rows) are dealt out to P parts, contiguous ranges
// [bounds[p], bounds[p + 1]) with about the same number of steps each. Rows
// are independent, and a part's rows of step t are a contiguous slice of the
// step's rows, so the parts of a direction run their recurrences side by side
// without copies. Each (direction, part) is a single-threaded stream; the
// large GEMMs over all steps run on the whole team.
struct LstmLayer : PackedSteps {
    bool bf16 = false;                  // mixed_bf16: see the top of this file
    std::vector<i64> bounds;            // P + 1 sequence boundaries
    TensorPtr y;                        // (R, D * N), bf16 in mixed_bf16
    std::vector<LstmDir> dirs;
};

// The sequence boundaries of P parts of about the same number of steps each
// (see LstmLayer; fewer parts when there are fewer sequences).
std::vector<i64> part_bounds(const std::vector<i64>& batches, i64 P);

// dst (cols, rows) = src (rows, cols)^T, in cache-sized tiles.
void transpose(const float* src, i64 rows, i64 cols, float* dst);

// gates = bias + x W_layer^T for every step at once (the team).
void lstm_input_gemm(const LstmLayer& L, const LstmDir& s);

// The recurrence of one direction over the state rows [lo, hi).
void lstm_steps_forward(const LstmLayer& L, LstmDir& s, i64 d, i64 lo, i64 hi, int threads);

struct LstmGrads {
    TensorPtr gx, ghx, gcx, gwl, gwi, gb;
    TensorPtr dgates;  // (R, 4N), the gates' pre-activation gradients
    // mixed_bf16: dgates as bf16; W_iter and W_layer packed for the GEMMs
    // of h_{t-1}'s and x's gradients
    TensorPtr dgates_b;
    PackedB wi_bwd, wl_bwd;
};

// Packs what the GEMMs of lstm_steps_backward and lstm_weight_grads read
// in mixed_bf16 (nothing in float32). Before the streams start.
void lstm_prepare_backward(const LstmLayer& L, const LstmDir& s, LstmGrads& out);

// The recurrence's gradients of one direction over the state rows [lo, hi):
// out.dgates for those rows' steps, out.ghx / out.gcx (holding ghy / gcy on
// entry) for those rows.
void lstm_steps_backward(const LstmLayer& L, const LstmDir& s, i64 d, const float* gy,
                         LstmGrads& out, i64 lo, i64 hi, int threads);

// The weight, bias and input gradients of one direction from its dgates
// (the team).
void lstm_weight_grads(const LstmLayer& L, const LstmDir& s, LstmGrads& out);

}  // namespace cpuframe::rnn
