// GRU and vanilla RNN layers on oneDNN's RNN primitives (the LSTM layers run
// on our own kernels: lstm_layer.hpp).
//
// GRU and vanilla RNN layers run on oneDNN's RNN primitives. oneDNN wants a
// fixed batch per call, so the time steps are cut into segments of constant
// batch; consecutive steps with the same batch lie next to each other in the
// packed rows, so each segment is a dense (T_k, B_k, C) tensor at a row offset
// and is passed to oneDNN without a copy. The recurrent state flows from
// segment to segment: left to right a segment starts from the first B_k rows
// of the previous segment's final state (the other rows have finished and go
// to hy); right to left it starts from the later segment's state for the rows
// that continue and from hx for the rows whose last step lies in this segment.
// rnn_backward walks the segments in the opposite order, passing the state
// gradients the same way, and lets oneDNN accumulate the weight gradients of
// all segments. Both ways the result is exact: every sequence sees precisely
// its own steps.
//
// Weights: as the top of rnn.cpp says (the stacked matrices are ldgoi; the
// forward primitive's ldigo is one reorder).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rnn_common.hpp"
#include "tensor.hpp"

namespace cpuframe::rnn {

// -- cells ----------------------------------------------------------------------

enum class CellKind { lstm, gru, rnn };

struct Cell {
    CellKind kind;
    algorithm activation;  // vanilla RNN only
    i64 gates;             // G: gate blocks of the weights
    i64 bias_gates;        // of the bias (linear-before-reset GRU has one more)
    bool has_c;
    std::string name;
};

// The cell named by name ('lstm', 'gru', 'rnn_tanh', 'rnn_relu'); ValueError
// naming fn otherwise.
Cell parse_cell(const char* fn, const std::string& name);

// (1, 1, C, G, N) weights in layout t (ldigo for the forward primitive, ldgoi
// for the backward one and the stacked matrices).
memory::desc weights_md(i64 C, i64 G, i64 N, tag t);

// -- one stream: a direction (or part of its batch) of a layer --------------------------

struct Segment {
    i64 t0 = 0, steps = 0, batch = 0, row0 = 0;  // first step, steps, batch, first packed row
    memory src_iter, src_iter_c, dst_iter, dst_iter_c, workspace;
    std::shared_ptr<void> ws_buffer;  // from the pool
    dnnl::primitive forward;
};

struct RnnContext {
    Cell cell;
    bool reverse = false;
    bool training = false;
    bool workspace_valid = false;  // oneDNN's backward consumes the workspace
    i64 C = 0, N = 0, B = 0, R = 0, y_cols = 0, y_col = 0;
    TensorPtr x, hx, cx, w_layer, w_iter, bias, w_layer_fwd, w_iter_fwd, y;
    std::vector<Segment> segments;  // in time order
};

using ContextPtr = std::shared_ptr<RnnContext>;

// The segments of constant batch of the steps' batches, in time order.
std::vector<Segment> make_segments(const std::vector<i64>& batches);

// Runs the forward primitive of every segment (states chained), filling
// ctx.y's columns, the segments' final states and, when training, their
// workspaces.
void run_forward(RnnContext& ctx, int threads);

// The final state of every row: where each sequence's last step left it.
void gather_final(const RnnContext& ctx, bool cell_state, float* out);

// Inputs and outputs of one stream's backward.
struct BwdIO {
    TensorPtr gy, ghy, gcy;
    TensorPtr gx, ghx, gcx, gwl, gwi, gb;
};

// The gradients of one stream: walks the segments in the opposite order of
// run_forward (re-running it first when the workspace was consumed).
void run_backward(RnnContext& ctx, BwdIO& io, int threads);

}  // namespace cpuframe::rnn
