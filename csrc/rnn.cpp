// Recurrent networks: the layers of n_step_lstm / n_step_gru / n_step_rnn (and
// their bidirectional forms) and the element-wise LSTM cell of F.lstm.
//
// One call of rnn_forward runs one layer, one or both directions, over packed,
// time-major, variable-length sequences: the rows of xs[0], xs[1], ...
// concatenated, xs[t] holding the B_t sequences still running at time t
// (B_0 >= B_1 >= ...).
//
// LSTM layers run on our own kernels (see "LSTM layers on our own kernels"):
// one GEMM for the input side of all steps, per step one GEMM and a fused,
// vectorized gate pass over the B_t rows still running, and for the gradients
// one GEMM per step plus the weight and input GEMMs over all steps at once.
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
// Weights arrive as the caller stacks Chainer's matrices: (G * N, C) with the
// gates in oneDNN's order, which is oneDNN's ldgoi layout as it is (the
// backward primitive's layout); the forward primitive's ldigo is one reorder.
// Weight gradients come back in the same stacked layout.
//
// Threads: the directions of a layer (and, with threads to spare, parts of
// its batch) run as independent single-threaded streams side by side, which
// keeps the cores busier than one OpenMP team per tiny step (see
// run_concurrently). Workspaces and scratchpads come from the tensor buffer pool.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#if defined(CPUFRAME_HAVE_OPENMP)
#include <omp.h>
#endif

#include "array_utils.hpp"
#include "gemm.hpp"
#include "engine.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "simd/kernels.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using dnnl::algorithm;
using dnnl::prop_kind;
using dnnl::rnn_direction;
using dims = memory::dims;
using tag = memory::format_tag;
using i64 = std::int64_t;

constexpr memory::data_type f32 = memory::data_type::f32;

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

Cell parse_cell(const char* fn, const std::string& name) {
    if (name == "lstm") return {CellKind::lstm, algorithm::undef, 4, 4, true, name};
    if (name == "gru") return {CellKind::gru, algorithm::undef, 3, 4, false, name};
    if (name == "rnn_tanh") return {CellKind::rnn, algorithm::eltwise_tanh, 1, 1, false, name};
    if (name == "rnn_relu") return {CellKind::rnn, algorithm::eltwise_relu, 1, 1, false, name};
    throw py::value_error(std::string(fn) +
                          ": expected cell 'lstm', 'gru', 'rnn_tanh' or 'rnn_relu', got '" +
                          name + "'");
}

// -- descs ----------------------------------------------------------------------

// (T, B, C) time-major rows with a row stride of ld floats (ld >= C: a column
// slice of a wider packed matrix).
memory::desc layer_md(i64 T, i64 B, i64 C, i64 ld) {
    return memory::desc({T, B, C}, f32, dims{B * ld, ld, 1});
}

memory::desc iter_md(i64 B, i64 C) { return memory::desc({1, 1, B, C}, f32, tag::ldnc); }

memory::desc weights_md(i64 C, i64 G, i64 N, tag t) {
    return memory::desc({1, 1, C, G, N}, f32, t);
}

memory::desc bias_md(i64 G, i64 N) { return memory::desc({1, 1, G, N}, f32, tag::ldgo); }

struct FwdDescs {
    memory::desc src_layer, src_iter, src_iter_c, w_layer, w_iter, bias, dst_layer, dst_iter,
        dst_iter_c;
};

struct BwdDescs {
    memory::desc diff_src_layer, diff_src_iter, diff_src_iter_c, diff_w_layer, diff_w_iter,
        diff_bias, diff_dst_layer, diff_dst_iter, diff_dst_iter_c;
};

// The descs of one segment: T steps of batch B, input C (row stride x_ld),
// N units written at row stride y_ld. `backward` selects the weight layout
// each pass wants (ldigo forward, ldgoi backward).
FwdDescs fwd_descs(const Cell& cell, i64 T, i64 B, i64 C, i64 N, i64 x_ld, i64 y_ld,
                   bool backward) {
    FwdDescs d;
    d.src_layer = layer_md(T, B, C, x_ld);
    d.src_iter = iter_md(B, N);
    d.w_layer = weights_md(C, cell.gates, N, backward ? tag::ldgoi : tag::ldigo);
    d.w_iter = weights_md(N, cell.gates, N, backward ? tag::ldgoi : tag::ldigo);
    d.bias = bias_md(cell.bias_gates, N);
    d.dst_layer = layer_md(T, B, N, y_ld);
    d.dst_iter = iter_md(B, N);
    if (cell.has_c) {
        d.src_iter_c = iter_md(B, N);
        d.dst_iter_c = iter_md(B, N);
    }
    return d;
}

BwdDescs bwd_descs(const Cell& cell, i64 T, i64 B, i64 C, i64 N, i64 gy_ld) {
    BwdDescs d;
    d.diff_src_layer = layer_md(T, B, C, C);
    d.diff_src_iter = iter_md(B, N);
    d.diff_w_layer = weights_md(C, cell.gates, N, tag::ldigo);
    d.diff_w_iter = weights_md(N, cell.gates, N, tag::ldigo);
    d.diff_bias = bias_md(cell.bias_gates, N);
    d.diff_dst_layer = layer_md(T, B, N, gy_ld);
    d.diff_dst_iter = iter_md(B, N);
    if (cell.has_c) {
        d.diff_src_iter_c = iter_md(B, N);
        d.diff_dst_iter_c = iter_md(B, N);
    }
    return d;
}

rnn_direction direction_of(bool reverse) {
    return reverse ? rnn_direction::unidirectional_right2left
                   : rnn_direction::unidirectional_left2right;
}

dnnl::primitive make_forward(const Cell& cell, prop_kind prop, bool reverse, const FwdDescs& d) {
    const dnnl::engine& eng = cpu_engine();
    const rnn_direction dir = direction_of(reverse);
    switch (cell.kind) {
        case CellKind::lstm:
            return dnnl::lstm_forward(dnnl::lstm_forward::primitive_desc(
                eng, prop, dir, d.src_layer, d.src_iter, d.src_iter_c, d.w_layer, d.w_iter,
                d.bias, d.dst_layer, d.dst_iter, d.dst_iter_c, op_attr()));
        case CellKind::gru:
            return dnnl::lbr_gru_forward(dnnl::lbr_gru_forward::primitive_desc(
                eng, prop, dir, d.src_layer, d.src_iter, d.w_layer, d.w_iter, d.bias,
                d.dst_layer, d.dst_iter, op_attr()));
        case CellKind::rnn:
            return dnnl::vanilla_rnn_forward(dnnl::vanilla_rnn_forward::primitive_desc(
                eng, prop, cell.activation, dir, d.src_layer, d.src_iter, d.w_layer, d.w_iter,
                d.bias, d.dst_layer, d.dst_iter, op_attr()));
    }
    throw std::logic_error("rnn: unknown cell");
}

// f: the forward descs with the backward weight layout; h: those of the
// forward primitive (the hint).
dnnl::primitive make_backward(const Cell& cell, bool reverse, const FwdDescs& f,
                              const FwdDescs& h, const BwdDescs& b) {
    const dnnl::engine& eng = cpu_engine();
    const rnn_direction dir = direction_of(reverse);
    const prop_kind train = prop_kind::forward_training;
    switch (cell.kind) {
        case CellKind::lstm: {
            dnnl::lstm_forward::primitive_desc hint(eng, train, dir, h.src_layer, h.src_iter,
                                                    h.src_iter_c, h.w_layer, h.w_iter, h.bias,
                                                    h.dst_layer, h.dst_iter, h.dst_iter_c);
            return dnnl::lstm_backward(dnnl::lstm_backward::primitive_desc(
                eng, prop_kind::backward, dir, f.src_layer, f.src_iter, f.src_iter_c,
                f.w_layer, f.w_iter, f.bias, f.dst_layer, f.dst_iter, f.dst_iter_c,
                b.diff_src_layer, b.diff_src_iter, b.diff_src_iter_c, b.diff_w_layer,
                b.diff_w_iter, b.diff_bias, b.diff_dst_layer, b.diff_dst_iter,
                b.diff_dst_iter_c, hint, op_attr()));
        }
        case CellKind::gru: {
            dnnl::lbr_gru_forward::primitive_desc hint(eng, train, dir, h.src_layer,
                                                       h.src_iter, h.w_layer, h.w_iter, h.bias,
                                                       h.dst_layer, h.dst_iter);
            return dnnl::lbr_gru_backward(dnnl::lbr_gru_backward::primitive_desc(
                eng, prop_kind::backward, dir, f.src_layer, f.src_iter, f.w_layer, f.w_iter,
                f.bias, f.dst_layer, f.dst_iter, b.diff_src_layer, b.diff_src_iter,
                b.diff_w_layer, b.diff_w_iter, b.diff_bias, b.diff_dst_layer,
                b.diff_dst_iter, hint, op_attr()));
        }
        case CellKind::rnn: {
            dnnl::vanilla_rnn_forward::primitive_desc hint(
                eng, train, cell.activation, dir, h.src_layer, h.src_iter, h.w_layer,
                h.w_iter, h.bias, h.dst_layer, h.dst_iter);
            return dnnl::vanilla_rnn_backward(dnnl::vanilla_rnn_backward::primitive_desc(
                eng, prop_kind::backward, cell.activation, dir, f.src_layer, f.src_iter,
                f.w_layer, f.w_iter, f.bias, f.dst_layer, f.dst_iter, b.diff_src_layer,
                b.diff_src_iter, b.diff_w_layer, b.diff_w_iter, b.diff_bias,
                b.diff_dst_layer, b.diff_dst_iter, hint, op_attr()));
        }
    }
    throw std::logic_error("rnn: unknown cell");
}

PrimitiveKey segment_key(const char* op, const Cell& cell, bool reverse, i64 T, i64 B, i64 C,
                         i64 N) {
    PrimitiveKey key(op);
    key.text("cell", cell.name).option("reverse", reverse).shape({T, B, C, N});
    return key;
}

// -- execution off the Python thread ----------------------------------------------
//
// The layer loops run with the GIL released (possibly on worker threads), so
// they execute primitives directly on the calling thread's stream.

void reorder_here(const memory& src, const memory& dst) {
    PrimitiveKey key("rnn_reorder");
    key.text("src", desc_key(src.get_desc())).text("dst", desc_key(dst.get_desc()));
    dnnl::primitive r = PrimitiveCache::global().get_or_create(key, [&] {
        return dnnl::reorder(dnnl::reorder::primitive_desc(
            cpu_engine(), src.get_desc(), cpu_engine(), dst.get_desc(), op_attr()));
    });
    execute_here(r, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
}

// -- buffers ----------------------------------------------------------------------

float* fptr(const TensorPtr& t) { return static_cast<float*>(t->data()); }

memory mem_at(const memory::desc& md, float* p) { return memory(md, cpu_engine(), p); }

// A library-allocated (B, N) state buffer.
memory new_state(i64 B, i64 N) { return memory(iter_md(B, N), cpu_engine()); }

float* state_ptr(const memory& m) { return static_cast<float*>(m.get_data_handle()); }

void copy_rows(float* dst, const float* src, i64 rows, i64 n) {
    if (rows > 0) std::memcpy(dst, src, static_cast<std::size_t>(rows * n) * sizeof(float));
}

TensorPtr new_plain(const Shape& shape) { return Tensor::empty(plain_desc(to_dims(shape)), shape); }

// obj (a Tensor or float32 ndarray) as a dense row-major Tensor of `shape`.
TensorPtr plain_input(const char* fn, const char* arg, const py::handle& obj, const Shape& shape) {
    TensorPtr t = as_tensor(fn, arg, obj);
    if (t->shape() != shape) {
        throw py::value_error(std::string(fn) + ": expected " + arg + " of shape " +
                              shape_str(shape) + ", got " + shape_str(t->shape()));
    }
    return in_layout(t, plain_desc(to_dims(shape)));
}

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

std::vector<Segment> make_segments(const std::vector<i64>& batches) {
    std::vector<Segment> segs;
    i64 row = 0;
    for (std::size_t t = 0; t < batches.size(); ++t) {
        if (segs.empty() || segs.back().batch != batches[t]) {
            Segment s;
            s.t0 = static_cast<i64>(t);
            s.batch = batches[t];
            s.row0 = row;
            segs.push_back(s);
        }
        segs.back().steps += 1;
        row += batches[t];
    }
    return segs;
}

// Runs the forward primitive of every segment (states chained), filling
// ctx.y's columns, the segments' final states and, when training, their
// workspaces.
void run_forward(RnnContext& ctx, int threads) {
    const Cell& cell = ctx.cell;
    const prop_kind prop = ctx.training ? prop_kind::forward_training : prop_kind::forward_inference;
    const i64 N = ctx.N, C = ctx.C;
    const i64 K = static_cast<i64>(ctx.segments.size());
    float* x = fptr(ctx.x);
    float* y = fptr(ctx.y) + ctx.y_col;
    float* hx = fptr(ctx.hx);
    float* cx = ctx.cx ? fptr(ctx.cx) : nullptr;
    const memory wl = ctx.w_layer_fwd->mem_as(weights_md(C, cell.gates, N, tag::ldigo));
    const memory wi = ctx.w_iter_fwd->mem_as(weights_md(N, cell.gates, N, tag::ldigo));
    const memory b = ctx.bias->mem_as(bias_md(cell.bias_gates, N));

    for (i64 step = 0; step < K; ++step) {
        const i64 k = ctx.reverse ? K - 1 - step : step;
        Segment& s = ctx.segments[k];
        const i64 Bk = s.batch;
        // the initial state of this segment
        if (!ctx.reverse) {
            float* h0 = step == 0 ? hx : state_ptr(ctx.segments[k - 1].dst_iter);
            s.src_iter = mem_at(iter_md(Bk, N), h0);
            if (cell.has_c) {
                float* c0 = step == 0 ? cx : state_ptr(ctx.segments[k - 1].dst_iter_c);
                s.src_iter_c = mem_at(iter_md(Bk, N), c0);
            }
        } else if (step == 0) {
            s.src_iter = mem_at(iter_md(Bk, N), hx);
            if (cell.has_c) s.src_iter_c = mem_at(iter_md(Bk, N), cx);
        } else {
            // rows continuing from the later segment, then rows starting here
            const i64 Bn = ctx.segments[k + 1].batch;
            if (!s.src_iter) s.src_iter = new_state(Bk, N);
            copy_rows(state_ptr(s.src_iter), state_ptr(ctx.segments[k + 1].dst_iter), Bn, N);
            copy_rows(state_ptr(s.src_iter) + Bn * N, hx + Bn * N, Bk - Bn, N);
            if (cell.has_c) {
                if (!s.src_iter_c) s.src_iter_c = new_state(Bk, N);
                copy_rows(state_ptr(s.src_iter_c), state_ptr(ctx.segments[k + 1].dst_iter_c),
                          Bn, N);
                copy_rows(state_ptr(s.src_iter_c) + Bn * N, cx + Bn * N, Bk - Bn, N);
            }
        }
        if (!s.dst_iter) s.dst_iter = new_state(Bk, N);
        if (cell.has_c && !s.dst_iter_c) s.dst_iter_c = new_state(Bk, N);

        const FwdDescs d = fwd_descs(cell, s.steps, Bk, C, N, C, ctx.y_cols, false);
        PrimitiveKey key = segment_key("rnn_forward", cell, ctx.reverse, s.steps, Bk, C, N);
        key.prop(prop).option("y_ld", ctx.y_cols).option("threads", threads);
        s.forward = PrimitiveCache::global().get_or_create(
            key, [&] { return make_forward(cell, prop, ctx.reverse, d); });
        std::unordered_map<int, memory> args{
            {DNNL_ARG_SRC_LAYER, mem_at(d.src_layer, x + s.row0 * C)},
            {DNNL_ARG_SRC_ITER, s.src_iter},
            {DNNL_ARG_WEIGHTS_LAYER, wl},
            {DNNL_ARG_WEIGHTS_ITER, wi},
            {DNNL_ARG_BIAS, b},
            {DNNL_ARG_DST_LAYER, mem_at(d.dst_layer, y + s.row0 * ctx.y_cols)},
            {DNNL_ARG_DST_ITER, s.dst_iter}};
        if (cell.has_c) {
            args[DNNL_ARG_SRC_ITER_C] = s.src_iter_c;
            args[DNNL_ARG_DST_ITER_C] = s.dst_iter_c;
        }
        if (ctx.training) {
            const memory::desc ws_md = query_md(s.forward, dnnl::query::workspace_md);
            if (!s.workspace) {
                s.ws_buffer = pooled_buffer(ws_md.get_size());
                s.workspace = memory(ws_md, cpu_engine(), s.ws_buffer.get());
            }
            args[DNNL_ARG_WORKSPACE] = s.workspace;
        }
        execute_here(s.forward, args);
    }
    ctx.workspace_valid = ctx.training;
}

// The final state of every row: where each sequence's last step left it.
void gather_final(const RnnContext& ctx, bool cell_state, float* out) {
    const i64 N = ctx.N;
    const float* init = cell_state ? fptr(ctx.cx) : fptr(ctx.hx);
    auto final_of = [&](const Segment& s) {
        return state_ptr(cell_state ? s.dst_iter_c : s.dst_iter);
    };
    const i64 K = static_cast<i64>(ctx.segments.size());
    const i64 B0 = ctx.segments[0].batch;
    if (!ctx.reverse) {
        // rows [B_{k+1}, B_k) end in segment k
        for (i64 k = 0; k < K; ++k) {
            const i64 lo = k + 1 < K ? ctx.segments[k + 1].batch : 0;
            const i64 hi = ctx.segments[k].batch;
            copy_rows(out + lo * N, final_of(ctx.segments[k]) + lo * N, hi - lo, N);
        }
    } else {
        copy_rows(out, final_of(ctx.segments[0]), B0, N);
    }
    // sequences of length 0 (hx rows beyond xs[0]) keep their initial state
    copy_rows(out + B0 * N, init + B0 * N, ctx.B - B0, N);
}

// -- running the directions of a layer side by side ------------------------------
//
// The two directions of a bidirectional layer are independent, so they run at
// the same time, each on its own thread with half of the OpenMP threads (one
// each on two cores). A recurrence parallelizes poorly inside a step (small
// GEMMs, a barrier per step); two sequential recurrences side by side keep
// both cores busy. Each worker runs oneDNN on its own stream and creates its
// primitives itself, with its own thread count in the key.

int max_threads() {
#if defined(CPUFRAME_HAVE_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

void set_threads(int n) {
#if defined(CPUFRAME_HAVE_OPENMP)
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

// Limits this thread's OpenMP team for a scope. Small recurrences run on one
// thread: a step of a few thousand multiply-adds gains nothing from a team,
// and each of its barriers costs a scheduler time slice whenever another
// process holds a core.
class ThreadLimit {
public:
    explicit ThreadLimit(int n) : saved_(max_threads()) {
        if (n < saved_) set_threads(n);
    }
    ~ThreadLimit() { set_threads(saved_); }
    ThreadLimit(const ThreadLimit&) = delete;
    ThreadLimit& operator=(const ThreadLimit&) = delete;

private:
    int saved_;
};

// Multiply-adds of one step below which a layer runs on one thread.
constexpr i64 small_step_macs = i64{1} << 20;

int threads_for(i64 batch, i64 C, i64 N, i64 G) {
    return batch * (C + N) * G * N < small_step_macs ? 1 : max_threads();
}

// Runs body(i) for i in [0, n) concurrently, a share of the threads each (one
// after the other when there are fewer threads than bodies), the GIL
// released.
template <class Body>
void run_concurrently(std::size_t n, Body&& body) {
    py::gil_scoped_release release;
    const int total = max_threads();
    if (n < 2 || total < static_cast<int>(n)) {
        for (std::size_t i = 0; i < n; ++i) body(i, total);
        return;
    }
    const int share = total / static_cast<int>(n);
    std::vector<std::exception_ptr> errors(n);
    std::vector<std::thread> workers;
    for (std::size_t i = 1; i < n; ++i) {
        workers.emplace_back([&, i] {
            try {
                set_threads(share);
                body(i, share);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        });
    }
    const int mine = total - share * static_cast<int>(n - 1);
    set_threads(mine);
    try {
        body(0, mine);
    } catch (...) {
        errors[0] = std::current_exception();
    }
    set_threads(total);
    for (std::thread& w : workers) w.join();
    for (const std::exception_ptr& e : errors) {
        if (e) std::rethrow_exception(e);
    }
}

std::vector<py::object> as_list(const char* fn, const char* arg, const py::object& obj,
                                std::size_t n) {
    std::vector<py::object> v;
    if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj)) {
        throw py::type_error(std::string(fn) + ": expected " + arg + " as a list");
    }
    for (const py::handle& h : obj) v.push_back(py::reinterpret_borrow<py::object>(h));
    if (v.size() != n) {
        throw py::value_error(std::string(fn) + ": expected " + arg + " with " +
                              std::to_string(n) + " entries (one per direction), got " +
                              std::to_string(v.size()));
    }
    return v;
}

// -- a layer: directions x batch parts ------------------------------------------------
//
// A layer runs as independent streams, each single-threaded on a core of its
// own: the directions, and, when there are more threads than directions, the
// rows of the batch dealt out round-robin (row i to part i % P; sequences are
// independent, so this is exact, and each part keeps the sorted, shrinking
// batch). A part's packed rows are gathered into a dense matrix and its
// outputs scattered back; its weight gradients are summed.

// Rows of step t that part p of P holds: i = p, p + P, ... < b.
i64 part_rows(i64 b, i64 P, i64 p) { return b > p ? (b - p + P - 1) / P : 0; }

// Copies, per step, the rows of part p between the full packed matrix
// (ld_full floats per row, starting at column col) and the part's dense one
// (ld_part per row): gather when `gather`, else scatter. n floats a row.
void move_part_rows(float* full, i64 ld_full, i64 col, float* part, i64 ld_part, i64 n,
                    const std::vector<i64>& batches, i64 P, i64 p, bool gather) {
    i64 off_full = 0, off_part = 0;
    for (i64 b : batches) {
        const i64 rows = part_rows(b, P, p);
        for (i64 j = 0; j < rows; ++j) {
            float* f = full + (off_full + p + j * P) * ld_full + col;
            float* q = part + (off_part + j) * ld_part;
            if (gather) {
                std::memcpy(q, f, static_cast<std::size_t>(n) * sizeof(float));
            } else {
                std::memcpy(f, q, static_cast<std::size_t>(n) * sizeof(float));
            }
        }
        off_full += b;
        off_part += rows;
    }
}

// State rows (B of them) of part p: i = p, p + P, ...
void move_part_states(float* full, float* part, i64 B, i64 N, i64 P, i64 p, bool gather) {
    move_part_rows(full, N, 0, part, N, N, {B}, P, p, gather);
}

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

// dst (cols, rows) = src (rows, cols)^T, in cache-sized tiles.
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

// One direction of an LSTM layer: its inputs and what backward needs.
struct LstmDir {
    bool reverse = false;
    TensorPtr x, wl, wi, bias, hx, cx;  // (R, C), (4N, C), (4N, N), (4, N), (B, N) x2
    TensorPtr wi_t;                     // (N, 4N): W_iter transposed for the steps' GEMMs
    TensorPtr gates, cs, hprev, cprev;  // (R, 4N) activated gates; (R, N): c_t, h_{t-1}, c_{t-1}
    TensorPtr hy, cy;                   // (B, N)
};

// The fewest sequences a part of an LSTM layer gets (see rnn_forward).
constexpr i64 kLstmMinPartRows = 32;

// The sequences (state rows) are dealt out to P parts, contiguous ranges
// [bounds[p], bounds[p + 1]) with about the same number of steps each. Rows
// are independent, and a part's rows of step t are a contiguous slice of the
// step's rows, so the parts of a direction run their recurrences side by side
// without copies. Each (direction, part) is a single-threaded stream; the
// large GEMMs over all steps run on the whole team.
struct LstmLayer {
    i64 D = 1, C = 0, N = 0, B = 0, R = 0;
    std::vector<i64> batches, offsets;  // rows of step t, first packed row of step t
    std::vector<i64> bounds;            // P + 1 sequence boundaries
    TensorPtr y;                        // (R, D * N)
    std::vector<LstmDir> dirs;
};

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

// gates = bias + x W_layer^T for every step at once (the team).
void lstm_input_gemm(const LstmLayer& L, const LstmDir& s) {
    const i64 G = 4 * L.N;
    float* g = fptr(s.gates);
    const float* bias = fptr(s.bias);
    for (i64 r = 0; r < L.R; ++r) std::memcpy(g + r * G, bias, G * sizeof(float));
    sgemm('N', 'T', L.R, G, L.C, fptr(s.x), L.C, fptr(s.wl), L.C, 1.0f, g, G);
}

// The recurrence of one direction over the state rows [lo, hi).
void lstm_steps_forward(const LstmLayer& L, LstmDir& s, i64 d, i64 lo, i64 hi, int threads) {
    const i64 N = L.N, G = 4 * N, ldy = L.D * N;
    const i64 T = static_cast<i64>(L.batches.size());
    float* g = fptr(s.gates);
    float* h = fptr(s.hy);
    float* c = fptr(s.cy);
    float* y = fptr(L.y) + d * N;
    for (i64 step = 0; step < T; ++step) {
        const i64 t = s.reverse ? T - 1 - step : step;
        const i64 b = std::min(L.batches[t], hi) - lo;
        if (b <= 0) continue;
        const i64 r = L.offsets[t] + lo;  // this part's first packed row of step t
        float* hp = fptr(s.hprev) + r * N;
        float* cp = fptr(s.cprev) + r * N;
        copy_rows(hp, h + lo * N, b, N);
        copy_rows(cp, c + lo * N, b, N);
        float* gt = g + r * G;
        sgemm('N', 'N', b, G, N, hp, N, fptr(s.wi_t), G, 1.0f, gt, G);
        float* ct = fptr(s.cs) + r * N;
        for_rows(b, N, threads, [&](i64 j) {
            lstm_row_forward(gt + j * G, cp + j * N, ct + j * N, h + (lo + j) * N,
                             y + (r + j) * ldy, N);
        });
        copy_rows(c + lo * N, ct, b, N);
    }
}

struct LstmGrads {
    TensorPtr gx, ghx, gcx, gwl, gwi, gb;
    TensorPtr dgates;  // (R, 4N), the gates' pre-activation gradients
};

// The recurrence's gradients of one direction over the state rows [lo, hi):
// out.dgates for those rows' steps, out.ghx / out.gcx (holding ghy / gcy on
// entry) for those rows.
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
        sgemm('N', 'N', b, N, G, dg + r * G, G, fptr(s.wi), N, 0.0f, dh + lo * N, N);
    }
}

// The weight, bias and input gradients of one direction from its dgates
// (the team).
void lstm_weight_grads(const LstmLayer& L, const LstmDir& s, LstmGrads& out) {
    const i64 N = L.N, C = L.C, R = L.R, G = 4 * N;
    const float* dg = fptr(out.dgates);
    sgemm('T', 'N', G, C, R, dg, G, fptr(s.x), C, 0.0f, fptr(out.gwl), C);
    sgemm('T', 'N', G, N, R, dg, G, fptr(s.hprev), N, 0.0f, fptr(out.gwi), N);
    float* gb = fptr(out.gb);
    std::fill(gb, gb + G, 0.0f);
    for (i64 r = 0; r < R; ++r) {
        const float* row = dg + r * G;
        for (i64 k = 0; k < G; ++k) gb[k] += row[k];
    }
    if (out.gx) sgemm('N', 'N', R, C, G, dg, G, fptr(s.wl), C, 0.0f, fptr(out.gx), C);
}

struct LayerContext {
    Cell cell;
    i64 D = 1, P = 1, C = 0, N = 0, B = 0, R = 0;
    std::vector<i64> batches;
    std::vector<ContextPtr> streams;  // direction-major: d * P + p
    std::shared_ptr<LstmLayer> lstm;  // LSTM layers: our own kernels, no streams
};

using LayerPtr = std::shared_ptr<LayerContext>;

py::tuple rnn_forward(const std::string& cell_name, bool training,
                      const std::vector<i64>& batches, const py::object& xs_obj,
                      const py::object& hxs_obj, const py::object& cxs_obj,
                      const py::object& wls_obj, const py::object& wis_obj,
                      const py::object& biases_obj) {
    constexpr const char* fn = "rnn_forward";
    const Cell cell = parse_cell(fn, cell_name);
    if (batches.empty()) throw py::value_error(std::string(fn) + ": expected at least one step");
    i64 R = 0;
    for (std::size_t t = 0; t < batches.size(); ++t) {
        if (batches[t] < 1 || (t > 0 && batches[t] > batches[t - 1])) {
            throw py::value_error(std::string(fn) +
                                  ": expected positive, non-increasing batch sizes per step");
        }
        R += batches[t];
    }
    if (!py::isinstance<py::list>(xs_obj) && !py::isinstance<py::tuple>(xs_obj)) {
        throw py::type_error(std::string(fn) + ": expected xs as a list (one per direction)");
    }
    const std::size_t D = py::len(xs_obj);
    if (D < 1 || D > 2) {
        throw py::value_error(std::string(fn) + ": expected 1 or 2 directions, got " +
                              std::to_string(D));
    }
    const auto xs = as_list(fn, "xs", xs_obj, D);
    const auto hxs = as_list(fn, "hxs", hxs_obj, D);
    const auto wls = as_list(fn, "w_layers", wls_obj, D);
    const auto wis = as_list(fn, "w_iters", wis_obj, D);
    const auto bs = as_list(fn, "biases", biases_obj, D);
    std::vector<py::object> cxs;
    if (cell.has_c) {
        if (cxs_obj.is_none()) throw py::value_error(std::string(fn) + ": lstm needs cxs");
        cxs = as_list(fn, "cxs", cxs_obj, D);
    }

    TensorPtr x0 = as_tensor(fn, "x", xs[0]);
    TensorPtr h0 = as_tensor(fn, "hx", hxs[0]);
    if (x0->ndim() != 2 || x0->shape()[0] != R) {
        throw py::value_error(std::string(fn) + ": expected x of shape (" + std::to_string(R) +
                              ", in_size) (the packed steps), got " + shape_str(x0->shape()));
    }
    if (h0->ndim() != 2 || h0->shape()[0] < batches[0]) {
        throw py::value_error(std::string(fn) + ": expected hx of shape (batch >= " +
                              std::to_string(batches[0]) + ", n_units), got " +
                              shape_str(h0->shape()));
    }
    const i64 C = x0->shape()[1], B = h0->shape()[0], N = h0->shape()[1];
    const i64 G = cell.gates;
    const i64 y_cols = static_cast<i64>(D) * N;
    TensorPtr y = new_plain({R, y_cols});

    auto layer = std::make_shared<LayerContext>();
    layer->cell = cell;
    layer->D = static_cast<i64>(D);
    layer->C = C;
    layer->N = N;
    layer->B = B;
    layer->R = R;
    layer->batches = batches;
    const int threads = threads_for(batches[0], C, N, G);
    // batch parts per direction: the threads left over by the directions,
    // at least 8 rows a part
    const i64 P = std::max<i64>(
        1, std::min<i64>(threads / static_cast<i64>(D), batches[0] / 8));
    layer->P = P;

    struct Inputs {
        TensorPtr x, hx, cx, wl, wi, b;
    };
    std::vector<Inputs> ins(D);
    for (std::size_t d = 0; d < D; ++d) {
        ins[d].x = plain_input(fn, "x", xs[d], {R, C});
        ins[d].hx = plain_input(fn, "hx", hxs[d], {B, N});
        if (cell.has_c) ins[d].cx = plain_input(fn, "cx", cxs[d], {B, N});
        ins[d].wl = plain_input(fn, "w_layer", wls[d], {G * N, C});
        ins[d].wi = plain_input(fn, "w_iter", wis[d], {G * N, N});
        ins[d].b = plain_input(fn, "bias", bs[d], {cell.bias_gates, N});
    }

    auto what = [&] {
        return cell.name + " x " + shape_str(x0->shape()) + ", hx " + shape_str(h0->shape());
    };
    if (cell.kind == CellKind::lstm) {
        auto L = std::make_shared<LstmLayer>();
        L->D = static_cast<i64>(D);
        L->C = C;
        L->N = N;
        L->B = B;
        L->R = R;
        L->batches = batches;
        i64 row = 0;
        for (i64 b : batches) {
            L->offsets.push_back(row);
            row += b;
        }
        // parts per direction: the threads left over by the directions, at
        // least kLstmMinPartRows sequences a part (a step's GEMM of fewer rows
        // on one thread loses to the whole team on all rows: ptb_lstm, batch
        // 20 on 2 threads, one part 28 + 48 ms per layer forward + backward,
        // two parts of 10 rows 38 + 57 ms)
        L->bounds = part_bounds(
            batches,
            std::max<i64>(1, std::min<i64>(threads / static_cast<i64>(D),
                                           batches[0] / kLstmMinPartRows)));
        const std::size_t P_parts = L->bounds.size() - 1;
        L->y = y;
        L->dirs.resize(D);
        for (std::size_t d = 0; d < D; ++d) {
            LstmDir& s = L->dirs[d];
            s.reverse = d == 1;
            s.x = ins[d].x;
            s.wl = ins[d].wl;
            s.wi = ins[d].wi;
            s.bias = ins[d].b;
            s.hx = ins[d].hx;
            s.cx = ins[d].cx;
            s.wi_t = new_plain({N, G * N});
            s.gates = new_plain({R, G * N});
            s.cs = new_plain({R, N});
            s.hprev = new_plain({R, N});
            s.cprev = new_plain({R, N});
            s.hy = new_plain({B, N});
            s.cy = new_plain({B, N});
        }
        guard_dnnl(fn, what, [&] {
            ThreadLimit limit(threads);
            // A direction's own stream prepares it when it runs alone; its
            // parts share the team's work done first.
            auto prepare = [&](LstmDir& s) {
                transpose(fptr(s.wi), G * N, N, fptr(s.wi_t));
                lstm_input_gemm(*L, s);
                copy_rows(fptr(s.hy), fptr(s.hx), B, N);
                copy_rows(fptr(s.cy), fptr(s.cx), B, N);
            };
            if (P_parts > 1) {
                py::gil_scoped_release release;
                for (LstmDir& s : L->dirs) prepare(s);
            }
            run_concurrently(D * P_parts, [&](std::size_t i, int t) {
                const std::size_t d = i / P_parts, p = i % P_parts;
                if (P_parts == 1) prepare(L->dirs[d]);
                lstm_steps_forward(*L, L->dirs[d], static_cast<i64>(d), L->bounds[p],
                                   L->bounds[p + 1], t);
            });
        });
        py::list hys, cys;
        for (std::size_t d = 0; d < D; ++d) {
            hys.append(L->dirs[d].hy);
            cys.append(L->dirs[d].cy);
        }
        layer->lstm = L;
        return py::make_tuple(training ? py::cast(layer) : py::object(py::none()), y, hys, cys);
    }
    guard_dnnl(fn, what, [&] {
        ThreadLimit limit(threads);
        for (std::size_t d = 0; d < D; ++d) {
            // ldgoi (the stacked matrices) to the forward primitive's ldigo
            TensorPtr wl_fwd = Tensor::empty(weights_md(C, G, N, tag::ldigo), {G * N, C});
            reorder_memory(ins[d].wl->mem_as(weights_md(C, G, N, tag::ldgoi)), wl_fwd->mem());
            TensorPtr wi_fwd = Tensor::empty(weights_md(N, G, N, tag::ldigo), {G * N, N});
            reorder_memory(ins[d].wi->mem_as(weights_md(N, G, N, tag::ldgoi)), wi_fwd->mem());
            for (i64 p = 0; p < P; ++p) {
                auto ctx = std::make_shared<RnnContext>();
                ctx->cell = cell;
                ctx->reverse = d == 1;
                ctx->training = training;
                ctx->C = C;
                ctx->N = N;
                ctx->w_layer = ins[d].wl;
                ctx->w_iter = ins[d].wi;
                ctx->bias = ins[d].b;
                ctx->w_layer_fwd = wl_fwd;
                ctx->w_iter_fwd = wi_fwd;
                if (P == 1) {
                    // the whole batch: no copies; y is written in place
                    ctx->B = B;
                    ctx->R = R;
                    ctx->x = ins[d].x;
                    ctx->hx = ins[d].hx;
                    ctx->cx = ins[d].cx;
                    ctx->y = y;
                    ctx->y_col = static_cast<i64>(d) * N;
                    ctx->y_cols = y_cols;
                    ctx->segments = make_segments(batches);
                } else {
                    std::vector<i64> pb;
                    for (i64 b : batches) {
                        if (part_rows(b, P, p) > 0) pb.push_back(part_rows(b, P, p));
                    }
                    i64 Rp = 0;
                    for (i64 b : pb) Rp += b;
                    ctx->B = part_rows(B, P, p);
                    ctx->R = Rp;
                    ctx->x = new_plain({Rp, C});
                    move_part_rows(fptr(ins[d].x), C, 0, fptr(ctx->x), C, C, batches, P, p, true);
                    ctx->hx = new_plain({ctx->B, N});
                    move_part_states(fptr(ins[d].hx), fptr(ctx->hx), B, N, P, p, true);
                    if (cell.has_c) {
                        ctx->cx = new_plain({ctx->B, N});
                        move_part_states(fptr(ins[d].cx), fptr(ctx->cx), B, N, P, p, true);
                    }
                    ctx->y = new_plain({Rp, N});
                    ctx->y_col = 0;
                    ctx->y_cols = N;
                    ctx->segments = make_segments(pb);
                }
                layer->streams.push_back(ctx);
            }
        }
        const std::size_t n = layer->streams.size();
        run_concurrently(n, [&](std::size_t i, int t) { run_forward(*layer->streams[i], t); });
    });

    py::list hys, cys;
    for (std::size_t d = 0; d < D; ++d) {
        TensorPtr hy = new_plain({B, N});
        TensorPtr cy = cell.has_c ? new_plain({B, N}) : nullptr;
        for (i64 p = 0; p < P; ++p) {
            const RnnContext& ctx = *layer->streams[d * P + p];
            if (P == 1) {
                gather_final(ctx, false, fptr(hy));
                if (cy) gather_final(ctx, true, fptr(cy));
                continue;
            }
            move_part_rows(fptr(y), y_cols, static_cast<i64>(d) * N, fptr(ctx.y), N, N,
                           batches, P, p, false);
            std::vector<float> part(static_cast<std::size_t>(ctx.B * N));
            gather_final(ctx, false, part.data());
            move_part_states(fptr(hy), part.data(), B, N, P, p, false);
            if (cy) {
                gather_final(ctx, true, part.data());
                move_part_states(fptr(cy), part.data(), B, N, P, p, false);
            }
        }
        hys.append(hy);
        if (cy) cys.append(cy);
    }
    return py::make_tuple(training ? py::cast(layer) : py::object(py::none()), y, hys,
                          cell.has_c ? py::object(cys) : py::object(py::none()));
}

// Inputs and outputs of one stream's backward.
struct BwdIO {
    TensorPtr gy, ghy, gcy;
    TensorPtr gx, ghx, gcx, gwl, gwi, gb;
};

void run_backward(RnnContext& ctx, BwdIO& io, int threads) {
    const Cell& cell = ctx.cell;
    const i64 N = ctx.N, C = ctx.C, B = ctx.B, G = cell.gates;
    // A second backward through the same forward: regenerate the workspace.
    if (!ctx.workspace_valid) run_forward(ctx, threads);

    const i64 K = static_cast<i64>(ctx.segments.size());
    const i64 B0 = ctx.segments[0].batch;
    float* gyp = fptr(io.gy) + ctx.y_col;
    float* ghyp = fptr(io.ghy);
    float* gcyp = io.gcy ? fptr(io.gcy) : nullptr;
    const memory wl = ctx.w_layer->mem_as(weights_md(C, G, N, tag::ldgoi));
    const memory wi = ctx.w_iter->mem_as(weights_md(N, G, N, tag::ldgoi));
    const memory b = ctx.bias->mem_as(bias_md(cell.bias_gates, N));
    memory dwl, dwi, db;  // accumulated over the segments, in the primitive's layout

    std::vector<memory> diff_src_iter(K), diff_src_iter_c(K);
    for (i64 step = 0; step < K; ++step) {
        // gradient order: the reverse of the forward order
        const i64 k = ctx.reverse ? step : K - 1 - step;
        Segment& s = ctx.segments[k];
        const i64 Bk = s.batch;
        memory dst_diff, dst_diff_c;
        if (!ctx.reverse) {
            // rows continuing into the next segment get its state gradient;
            // rows ending here get ghy
            const i64 Bn = k + 1 < K ? ctx.segments[k + 1].batch : 0;
            if (Bn == 0) {
                dst_diff = mem_at(iter_md(Bk, N), ghyp);
                if (cell.has_c) dst_diff_c = mem_at(iter_md(Bk, N), gcyp);
            } else {
                dst_diff = new_state(Bk, N);
                copy_rows(state_ptr(dst_diff), state_ptr(diff_src_iter[k + 1]), Bn, N);
                copy_rows(state_ptr(dst_diff) + Bn * N, ghyp + Bn * N, Bk - Bn, N);
                if (cell.has_c) {
                    dst_diff_c = new_state(Bk, N);
                    copy_rows(state_ptr(dst_diff_c), state_ptr(diff_src_iter_c[k + 1]), Bn, N);
                    copy_rows(state_ptr(dst_diff_c) + Bn * N, gcyp + Bn * N, Bk - Bn, N);
                }
            }
        } else if (k == 0) {
            dst_diff = mem_at(iter_md(Bk, N), ghyp);
            if (cell.has_c) dst_diff_c = mem_at(iter_md(Bk, N), gcyp);
        } else {
            dst_diff = mem_at(iter_md(Bk, N), state_ptr(diff_src_iter[k - 1]));
            if (cell.has_c) dst_diff_c = mem_at(iter_md(Bk, N), state_ptr(diff_src_iter_c[k - 1]));
        }
        diff_src_iter[k] = new_state(Bk, N);
        if (cell.has_c) diff_src_iter_c[k] = new_state(Bk, N);

        const FwdDescs f = fwd_descs(cell, s.steps, Bk, C, N, C, ctx.y_cols, true);
        const FwdDescs h = fwd_descs(cell, s.steps, Bk, C, N, C, ctx.y_cols, false);
        const BwdDescs d = bwd_descs(cell, s.steps, Bk, C, N, ctx.y_cols);
        PrimitiveKey key = segment_key("rnn_backward", cell, ctx.reverse, s.steps, Bk, C, N);
        key.option("y_ld", ctx.y_cols).option("threads", threads);
        dnnl::primitive bwd = PrimitiveCache::global().get_or_create(
            key, [&] { return make_backward(cell, ctx.reverse, f, h, d); });
        if (!dwl) {
            dwl = memory(query_md(bwd, dnnl::query::exec_arg_md, DNNL_ARG_DIFF_WEIGHTS_LAYER),
                         cpu_engine());
            dwi = memory(query_md(bwd, dnnl::query::exec_arg_md, DNNL_ARG_DIFF_WEIGHTS_ITER),
                         cpu_engine());
            db = memory(query_md(bwd, dnnl::query::exec_arg_md, DNNL_ARG_DIFF_BIAS),
                        cpu_engine());
            for (const memory* m : {&dwl, &dwi, &db}) {
                std::memset(m->get_data_handle(), 0, m->get_desc().get_size());
            }
        }
        std::unordered_map<int, memory> args{
            {DNNL_ARG_SRC_LAYER, mem_at(f.src_layer, fptr(ctx.x) + s.row0 * C)},
            {DNNL_ARG_SRC_ITER, s.src_iter},
            {DNNL_ARG_WEIGHTS_LAYER, wl},
            {DNNL_ARG_WEIGHTS_ITER, wi},
            {DNNL_ARG_BIAS, b},
            {DNNL_ARG_DST_LAYER,
             mem_at(f.dst_layer, fptr(ctx.y) + ctx.y_col + s.row0 * ctx.y_cols)},
            {DNNL_ARG_DST_ITER, s.dst_iter},
            {DNNL_ARG_WORKSPACE, s.workspace},
            {DNNL_ARG_DIFF_SRC_LAYER, mem_at(d.diff_src_layer, fptr(io.gx) + s.row0 * C)},
            {DNNL_ARG_DIFF_SRC_ITER, diff_src_iter[k]},
            {DNNL_ARG_DIFF_WEIGHTS_LAYER, dwl},
            {DNNL_ARG_DIFF_WEIGHTS_ITER, dwi},
            {DNNL_ARG_DIFF_BIAS, db},
            {DNNL_ARG_DIFF_DST_LAYER, mem_at(d.diff_dst_layer, gyp + s.row0 * ctx.y_cols)},
            {DNNL_ARG_DIFF_DST_ITER, dst_diff}};
        if (cell.has_c) {
            args[DNNL_ARG_SRC_ITER_C] = s.src_iter_c;
            args[DNNL_ARG_DST_ITER_C] = s.dst_iter_c;
            args[DNNL_ARG_DIFF_SRC_ITER_C] = diff_src_iter_c[k];
            args[DNNL_ARG_DIFF_DST_ITER_C] = dst_diff_c;
        }
        execute_here(bwd, args);
    }
    ctx.workspace_valid = false;

    // the initial states' gradients
    float* ghxp = fptr(io.ghx);
    float* gcxp = io.gcx ? fptr(io.gcx) : nullptr;
    if (!ctx.reverse) {
        copy_rows(ghxp, state_ptr(diff_src_iter[0]), B0, N);
        if (gcxp) copy_rows(gcxp, state_ptr(diff_src_iter_c[0]), B0, N);
    } else {
        // rows [B_{k+1}, B_k) start in segment k
        for (i64 k = 0; k < K; ++k) {
            const i64 lo = k + 1 < K ? ctx.segments[k + 1].batch : 0;
            const i64 hi = ctx.segments[k].batch;
            copy_rows(ghxp + lo * N, state_ptr(diff_src_iter[k]) + lo * N, hi - lo, N);
            if (gcxp) copy_rows(gcxp + lo * N, state_ptr(diff_src_iter_c[k]) + lo * N, hi - lo, N);
        }
    }
    copy_rows(ghxp + B0 * N, ghyp + B0 * N, B - B0, N);
    if (gcxp) copy_rows(gcxp + B0 * N, gcyp + B0 * N, B - B0, N);

    // weight gradients back to the stacked (ldgoi) layout
    reorder_here(dwl, io.gwl->mem_as(weights_md(C, G, N, tag::ldgoi)));
    reorder_here(dwi, io.gwi->mem_as(weights_md(N, G, N, tag::ldgoi)));
    reorder_here(db, io.gb->mem_as(bias_md(cell.bias_gates, N)));
}

void add_into(const TensorPtr& dst, const TensorPtr& src) {
    float* d = fptr(dst);
    const float* s = fptr(src);
    const i64 n = dst->size();
    for (i64 i = 0; i < n; ++i) d[i] += s[i];
}

py::tuple rnn_backward(const LayerPtr& layer, const py::object& gy_obj,
                       const py::object& ghys_obj, const py::object& gcys_obj, bool need_gx) {
    constexpr const char* fn = "rnn_backward";
    if (!layer) throw py::value_error(std::string(fn) + ": expected a context");
    const Cell& cell = layer->cell;
    const i64 D = layer->D, P = layer->P, N = layer->N, C = layer->C, B = layer->B,
              R = layer->R, G = cell.gates;
    const auto ghys = as_list(fn, "ghys", ghys_obj, static_cast<std::size_t>(D));
    std::vector<py::object> gcys;
    if (cell.has_c) gcys = as_list(fn, "gcys", gcys_obj, static_cast<std::size_t>(D));
    TensorPtr gy = plain_input(fn, "gy", gy_obj, {R, D * N});
    std::vector<TensorPtr> ghy(D), gcy(D);
    for (i64 d = 0; d < D; ++d) {
        ghy[d] = plain_input(fn, "ghy", ghys[d], {B, N});
        if (cell.has_c) gcy[d] = plain_input(fn, "gcy", gcys[d], {B, N});
    }
    if (layer->lstm) {
        const LstmLayer& L = *layer->lstm;
        const std::size_t P_parts = L.bounds.size() - 1;
        std::vector<LstmGrads> outs(D);
        for (i64 d = 0; d < D; ++d) {
            LstmGrads& o = outs[d];
            if (need_gx) o.gx = new_plain({R, C});
            o.ghx = new_plain({B, N});
            o.gcx = new_plain({B, N});
            o.gwl = new_plain({G * N, C});
            o.gwi = new_plain({G * N, N});
            o.gb = new_plain({cell.bias_gates, N});
            o.dgates = new_plain({R, G * N});
            copy_rows(fptr(o.ghx), fptr(ghy[d]), B, N);
            copy_rows(fptr(o.gcx), fptr(gcy[d]), B, N);
        }
        guard_dnnl(fn, [&] { return cell.name + " rows " + std::to_string(R); }, [&] {
            ThreadLimit limit(threads_for(layer->batches[0], C, N, G));
            run_concurrently(static_cast<std::size_t>(D) * P_parts, [&](std::size_t i, int t) {
                const std::size_t d = i / P_parts, p = i % P_parts;
                lstm_steps_backward(L, L.dirs[d], static_cast<i64>(d), fptr(gy), outs[d],
                                    L.bounds[p], L.bounds[p + 1], t);
                if (P_parts == 1) lstm_weight_grads(L, L.dirs[d], outs[d]);
            });
            if (P_parts > 1) {
                py::gil_scoped_release release;
                for (i64 d = 0; d < D; ++d) lstm_weight_grads(L, L.dirs[d], outs[d]);
            }
        });
        py::list gxs, ghxs, gcxs, gwls, gwis, gbs;
        for (i64 d = 0; d < D; ++d) {
            gxs.append(outs[d].gx ? py::cast(outs[d].gx) : py::object(py::none()));
            ghxs.append(outs[d].ghx);
            gcxs.append(outs[d].gcx);
            gwls.append(outs[d].gwl);
            gwis.append(outs[d].gwi);
            gbs.append(outs[d].gb);
        }
        return py::make_tuple(gxs, ghxs, gcxs, gwls, gwis, gbs);
    }
    // per-direction results
    std::vector<TensorPtr> gx(D), ghx(D), gcx(D);
    for (i64 d = 0; d < D; ++d) {
        gx[d] = new_plain({R, C});
        ghx[d] = new_plain({B, N});
        if (cell.has_c) gcx[d] = new_plain({B, N});
    }
    std::vector<BwdIO> ios(layer->streams.size());
    for (i64 d = 0; d < D; ++d) {
        for (i64 p = 0; p < P; ++p) {
            const RnnContext& ctx = *layer->streams[d * P + p];
            BwdIO& io = ios[d * P + p];
            if (P == 1) {
                io.gy = gy;
                io.ghy = ghy[d];
                io.gcy = gcy[d];
                io.gx = gx[d];
                io.ghx = ghx[d];
                io.gcx = gcx[d];
            } else {
                io.gy = new_plain({ctx.R, N});
                move_part_rows(fptr(gy), D * N, d * N, fptr(io.gy), N, N, layer->batches, P, p,
                               true);
                io.ghy = new_plain({ctx.B, N});
                move_part_states(fptr(ghy[d]), fptr(io.ghy), B, N, P, p, true);
                if (cell.has_c) {
                    io.gcy = new_plain({ctx.B, N});
                    move_part_states(fptr(gcy[d]), fptr(io.gcy), B, N, P, p, true);
                    io.gcx = new_plain({ctx.B, N});
                }
                io.gx = new_plain({ctx.R, C});
                io.ghx = new_plain({ctx.B, N});
            }
            io.gwl = new_plain({G * N, C});
            io.gwi = new_plain({G * N, N});
            io.gb = new_plain({cell.bias_gates, N});
        }
    }
    auto what = [&] {
        return cell.name + " rows " + std::to_string(R) + ", hx " + shape_str(Shape{B, N});
    };
    guard_dnnl(fn, what, [&] {
        ThreadLimit limit(threads_for(layer->batches[0], C, N, G));
        run_concurrently(ios.size(), [&](std::size_t i, int t) {
            run_backward(*layer->streams[i], ios[i], t);
        });
    });
    py::list gxs, ghxs, gcxs, gwls, gwis, gbs;
    for (i64 d = 0; d < D; ++d) {
        BwdIO& first = ios[d * P];
        for (i64 p = 0; p < P; ++p) {
            BwdIO& io = ios[d * P + p];
            if (P == 1) continue;
            move_part_rows(fptr(gx[d]), C, 0, fptr(io.gx), C, C, layer->batches, P, p, false);
            move_part_states(fptr(ghx[d]), fptr(io.ghx), B, N, P, p, false);
            if (cell.has_c) move_part_states(fptr(gcx[d]), fptr(io.gcx), B, N, P, p, false);
            if (p > 0) {
                add_into(first.gwl, io.gwl);
                add_into(first.gwi, io.gwi);
                add_into(first.gb, io.gb);
            }
        }
        gxs.append(need_gx ? py::cast(gx[d]) : py::object(py::none()));
        ghxs.append(ghx[d]);
        if (cell.has_c) gcxs.append(gcx[d]);
        gwls.append(first.gwl);
        gwis.append(first.gwi);
        gbs.append(first.gb);
    }
    return py::make_tuple(gxs, ghxs, cell.has_c ? py::object(gcxs) : py::object(py::none()),
                          gwls, gwis, gbs);
}

// -- the LSTM cell of F.lstm ----------------------------------------------------------
//
// x (B', 4N, S...) holds the gate pre-activations interleaved per unit (a, i,
// f, o: channel 4k + g is gate g of unit k), c_prev (B, N, S...) with B' <= B.
// Transcendentals run on oneDNN's vectorized eltwise primitives over flat
// buffers; the products run in plain loops the compiler vectorizes.

memory::desc flat_md(i64 n) { return memory::desc({n}, f32, tag::a); }

// dst = alg(src) over n floats (src and dst may be the same buffer).
void eltwise(algorithm alg, const float* src, float* dst, i64 n) {
    if (n == 0) return;
    PrimitiveKey key("lstm_cell_eltwise");
    key.algorithm(alg).shape({n});
    const memory::desc md = flat_md(n);
    dnnl::primitive p = PrimitiveCache::global().get_or_create(key, [&] {
        return dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(
            cpu_engine(), prop_kind::forward_inference, alg, md, md, 0.0f, 0.0f, op_attr()));
    });
    execute_here(p, {{DNNL_ARG_SRC, mem_at(md, const_cast<float*>(src))},
                     {DNNL_ARG_DST, mem_at(md, dst)}});
}

struct CellShapes {
    i64 B = 0, Bx = 0, N = 0, S = 1;  // state rows, input rows, units, trailing size
};

CellShapes cell_shapes(const char* fn, const Shape& c, const Shape& x) {
    if (c.size() < 2 || x.size() != c.size() || x[0] > c[0] || x[1] != 4 * c[1]) {
        throw py::value_error(std::string(fn) + ": expected c_prev (B, N, ...) and x (B' <= B, "
                              "4N, ...), got c_prev " + shape_str(c) + " and x " + shape_str(x));
    }
    CellShapes s;
    s.B = c[0];
    s.Bx = x[0];
    s.N = c[1];
    for (std::size_t i = 2; i < c.size(); ++i) {
        if (c[i] != x[i]) {
            throw py::value_error(std::string(fn) + ": expected c_prev and x to agree beyond "
                                  "axis 1, got c_prev " + shape_str(c) + " and x " +
                                  shape_str(x));
        }
        s.S *= c[i];
    }
    return s;
}

// The eltwise passes of a small cell run on one thread (see ThreadLimit).
int cell_threads(const CellShapes& s) {
    return s.Bx * 4 * s.N * s.S < (i64{1} << 18) ? 1 : max_threads();
}

// Activations shared by forward and backward: sig = sigmoid(x) (all gates),
// ta = tanh(a) (M = N * S per row), c = ta * sig(i) + sig(f) * c_prev,
// tc = tanh(c).
struct CellActs {
    std::vector<float> sig, ta, c, tc;
};

void cell_acts(const CellShapes& s, const float* x, const float* cp, CellActs& a) {
    const i64 M = s.N * s.S, rows = s.Bx, S = s.S;
    a.sig.resize(static_cast<std::size_t>(rows * 4 * M));
    a.ta.resize(static_cast<std::size_t>(rows * M));
    a.c.resize(static_cast<std::size_t>(rows * M));
    a.tc.resize(static_cast<std::size_t>(rows * M));
    eltwise(algorithm::eltwise_logistic, x, a.sig.data(), rows * 4 * M);
    for (i64 b = 0; b < rows; ++b) {
        const float* xr = x + b * 4 * M;
        float* tr = a.ta.data() + b * M;
        for (i64 k = 0; k < s.N; ++k) {
            for (i64 j = 0; j < S; ++j) tr[k * S + j] = xr[(4 * k) * S + j];
        }
    }
    eltwise(algorithm::eltwise_tanh, a.ta.data(), a.ta.data(), rows * M);
    for (i64 b = 0; b < rows; ++b) {
        const float* sr = a.sig.data() + b * 4 * M;
        const float* tr = a.ta.data() + b * M;
        const float* cr = cp + b * M;
        float* out = a.c.data() + b * M;
        for (i64 k = 0; k < s.N; ++k) {
            const float* si = sr + (4 * k + 1) * S;
            const float* sf = sr + (4 * k + 2) * S;
            for (i64 j = 0; j < S; ++j) {
                out[k * S + j] = tr[k * S + j] * si[j] + sf[j] * cr[k * S + j];
            }
        }
    }
    eltwise(algorithm::eltwise_tanh, a.c.data(), a.tc.data(), rows * M);
}

// h = sig(o) * tanh(c) and the new state (rows beyond B' keep c_prev).
void cell_forward(const CellShapes& s, const float* x, const float* cp, float* c, float* h) {
    const i64 M = s.N * s.S;
    CellActs a;
    cell_acts(s, x, cp, a);
    for (i64 b = 0; b < s.Bx; ++b) {
        const float* sr = a.sig.data() + b * 4 * M;
        const float* tc = a.tc.data() + b * M;
        float* hr = h + b * M;
        for (i64 k = 0; k < s.N; ++k) {
            const float* so = sr + (4 * k + 3) * s.S;
            for (i64 j = 0; j < s.S; ++j) hr[k * s.S + j] = so[j] * tc[k * s.S + j];
        }
    }
    copy_rows(c, a.c.data(), s.Bx, M);
    copy_rows(c + s.Bx * M, cp + s.Bx * M, s.B - s.Bx, M);
}

// Gradients of cell_forward: gcp (like c_prev) and gx (like x).
void cell_backward(const CellShapes& s, const float* x, const float* cp, const float* gc,
                   const float* gh, float* gcp, float* gx) {
    const i64 M = s.N * s.S, S = s.S;
    CellActs a;
    cell_acts(s, x, cp, a);
    for (i64 b = 0; b < s.Bx; ++b) {
        const float* sr = a.sig.data() + b * 4 * M;
        const float* ta = a.ta.data() + b * M;
        const float* tc = a.tc.data() + b * M;
        const float* cr = cp + b * M;
        const float* gcr = gc + b * M;
        const float* ghr = gh + b * M;
        float* gcpr = gcp + b * M;
        float* gxr = gx + b * 4 * M;
        for (i64 k = 0; k < s.N; ++k) {
            const float* si = sr + (4 * k + 1) * S;
            const float* sf = sr + (4 * k + 2) * S;
            const float* so = sr + (4 * k + 3) * S;
            float* ga = gxr + (4 * k) * S;
            float* gi = gxr + (4 * k + 1) * S;
            float* gf = gxr + (4 * k + 2) * S;
            float* go = gxr + (4 * k + 3) * S;
            for (i64 j = 0; j < S; ++j) {
                const i64 u = k * S + j;
                const float t = tc[u], av = ta[u];
                const float co = gcr[u] + ghr[u] * so[j] * (1.0f - t * t);
                gcpr[u] = co * sf[j];
                ga[j] = co * si[j] * (1.0f - av * av);
                gi[j] = co * av * si[j] * (1.0f - si[j]);
                gf[j] = co * cr[u] * sf[j] * (1.0f - sf[j]);
                go[j] = ghr[u] * t * so[j] * (1.0f - so[j]);
            }
        }
    }
    copy_rows(gcp + s.Bx * M, gc + s.Bx * M, s.B - s.Bx, M);
}

py::tuple lstm_cell_forward(const py::object& c_obj, const py::object& x_obj) {
    constexpr const char* fn = "lstm_cell_forward";
    TensorPtr c0 = as_tensor(fn, "c_prev", c_obj);
    TensorPtr x0 = as_tensor(fn, "x", x_obj);
    const CellShapes s = cell_shapes(fn, c0->shape(), x0->shape());
    TensorPtr cp = plain_input(fn, "c_prev", c_obj, c0->shape());
    TensorPtr x = plain_input(fn, "x", x_obj, x0->shape());
    Shape h_shape = c0->shape();
    h_shape[0] = s.Bx;
    TensorPtr c = new_plain(c0->shape());
    TensorPtr h = new_plain(h_shape);
    guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()); }, [&] {
        py::gil_scoped_release release;
        ThreadLimit limit(cell_threads(s));
        cell_forward(s, fptr(x), fptr(cp), fptr(c), fptr(h));
    });
    return py::make_tuple(c, h);
}

py::tuple lstm_cell_backward(const py::object& c_obj, const py::object& x_obj,
                             const py::object& gc_obj, const py::object& gh_obj) {
    constexpr const char* fn = "lstm_cell_backward";
    TensorPtr c0 = as_tensor(fn, "c_prev", c_obj);
    TensorPtr x0 = as_tensor(fn, "x", x_obj);
    const CellShapes s = cell_shapes(fn, c0->shape(), x0->shape());
    Shape h_shape = c0->shape();
    h_shape[0] = s.Bx;
    TensorPtr cp = plain_input(fn, "c_prev", c_obj, c0->shape());
    TensorPtr x = plain_input(fn, "x", x_obj, x0->shape());
    TensorPtr gc = plain_input(fn, "gc", gc_obj, c0->shape());
    TensorPtr gh = plain_input(fn, "gh", gh_obj, h_shape);
    TensorPtr gcp = new_plain(c0->shape());
    TensorPtr gx = new_plain(x0->shape());
    guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()); }, [&] {
        py::gil_scoped_release release;
        ThreadLimit limit(cell_threads(s));
        cell_backward(s, fptr(x), fptr(cp), fptr(gc), fptr(gh), fptr(gcp), fptr(gx));
    });
    return py::make_tuple(gcp, gx);
}

// -- L.LSTM's step, fused ---------------------------------------------------------------
//
// gates = x W_up^T + b + h W_lat^T (two GEMMs accumulating into one gate
// buffer: the weights stay where they are, no stacked copy), then the cell.
// The backward runs the cell backward and four GEMMs plus the bias sum.

// (sgemm: see the LSTM layers above)

struct StepShapes {
    i64 B, Bx, I, N;  // state rows, input rows, input size, units
};

StepShapes step_shapes(const char* fn, const TensorPtr& c, const TensorPtr& x,
                       const TensorPtr& w_up, const TensorPtr& b_up, const TensorPtr& h,
                       const TensorPtr& w_lat) {
    if (c->ndim() != 2 || x->ndim() != 2 || x->shape()[0] > c->shape()[0]) {
        throw py::value_error(std::string(fn) + ": expected c_prev (B, N) and x (B' <= B, I), "
                              "got c_prev " + shape_str(c->shape()) + " and x " +
                              shape_str(x->shape()));
    }
    StepShapes s{c->shape()[0], x->shape()[0], x->shape()[1], c->shape()[1]};
    const Shape up{4 * s.N, s.I}, lat{4 * s.N, s.N}, hs{s.Bx, s.N}, bs{4 * s.N};
    if (w_up->shape() != up || (b_up && b_up->shape() != bs) || (h && h->shape() != hs) ||
        (w_lat && w_lat->shape() != lat)) {
        throw py::value_error(
            std::string(fn) + ": expected W_up " + shape_str(up) + ", b_up " + shape_str(bs) +
            ", h " + shape_str(hs) + " and W_lat " + shape_str(lat) + ", got " +
            shape_str(w_up->shape()) + ", " + (b_up ? shape_str(b_up->shape()) : "None") +
            ", " + (h ? shape_str(h->shape()) : "None") + " and " +
            (w_lat ? shape_str(w_lat->shape()) : "None"));
    }
    return s;
}

TensorPtr optional_plain(const char* fn, const char* arg, const py::object& obj) {
    if (obj.is_none()) return nullptr;
    TensorPtr t = as_tensor(fn, arg, obj);
    return in_layout(t, plain_desc(to_dims(t->shape())));
}

int step_threads(const StepShapes& s) {
    return s.Bx * (s.I + s.N) * 4 * s.N < small_step_macs ? 1 : max_threads();
}

py::tuple lstm_step_forward(const py::object& c_obj, const py::object& x_obj,
                            const py::object& w_up_obj, const py::object& b_up_obj,
                            const py::object& h_obj, const py::object& w_lat_obj) {
    constexpr const char* fn = "lstm_step_forward";
    TensorPtr c = optional_plain(fn, "c_prev", c_obj), x = optional_plain(fn, "x", x_obj);
    TensorPtr w_up = optional_plain(fn, "W_up", w_up_obj);
    TensorPtr b_up = optional_plain(fn, "b_up", b_up_obj);
    TensorPtr h = optional_plain(fn, "h", h_obj), w_lat = optional_plain(fn, "W_lat", w_lat_obj);
    if (!c || !x || !w_up || (h && !w_lat)) {
        throw py::value_error(std::string(fn) + ": expected c_prev, x, W_up (and W_lat with h)");
    }
    const StepShapes s = step_shapes(fn, c, x, w_up, b_up, h, w_lat);
    const i64 G = 4 * s.N;
    TensorPtr gates = new_plain({s.Bx, G});
    TensorPtr c_new = new_plain({s.B, s.N});
    TensorPtr h_new = new_plain({s.Bx, s.N});
    guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()); }, [&] {
        py::gil_scoped_release release;
        ThreadLimit limit(step_threads(s));
        float* g = fptr(gates);
        float beta = 0.0f;
        if (b_up) {
            for (i64 r = 0; r < s.Bx; ++r) std::memcpy(g + r * G, fptr(b_up), G * sizeof(float));
            beta = 1.0f;
        }
        sgemm('N', 'T', s.Bx, G, s.I, fptr(x), s.I, fptr(w_up), s.I, beta, g, G);
        if (h) sgemm('N', 'T', s.Bx, G, s.N, fptr(h), s.N, fptr(w_lat), s.N, 1.0f, g, G);
        const CellShapes cs{s.B, s.Bx, s.N, 1};
        cell_forward(cs, g, fptr(c), fptr(c_new), fptr(h_new));
    });
    return py::make_tuple(c_new, h_new, gates);
}

py::tuple lstm_step_backward(const py::object& c_obj, const py::object& x_obj,
                             const py::object& w_up_obj, bool with_bias, const py::object& h_obj,
                             const py::object& w_lat_obj, const py::object& gates_obj,
                             const py::object& gc_obj, const py::object& gh_obj,
                             const py::object& gw_up_acc_obj, const py::object& gb_acc_obj,
                             const py::object& gw_lat_acc_obj) {
    constexpr const char* fn = "lstm_step_backward";
    TensorPtr c = optional_plain(fn, "c_prev", c_obj), x = optional_plain(fn, "x", x_obj);
    TensorPtr w_up = optional_plain(fn, "W_up", w_up_obj);
    TensorPtr h = optional_plain(fn, "h", h_obj), w_lat = optional_plain(fn, "W_lat", w_lat_obj);
    if (!c || !x || !w_up || (h && !w_lat)) {
        throw py::value_error(std::string(fn) + ": expected c_prev, x, W_up (and W_lat with h)");
    }
    const StepShapes s = step_shapes(fn, c, x, w_up, nullptr, h, w_lat);
    const i64 G = 4 * s.N;
    TensorPtr gates = plain_input(fn, "gates", gates_obj, {s.Bx, G});
    TensorPtr gc = plain_input(fn, "gc", gc_obj, {s.B, s.N});
    TensorPtr gh = plain_input(fn, "gh", gh_obj, {s.Bx, s.N});
    TensorPtr gcp = new_plain({s.B, s.N});
    TensorPtr ggates = new_plain({s.Bx, G});
    TensorPtr gx = new_plain({s.Bx, s.I});
    // The weight gradients: added into the accumulators given (the sums so
    // far of a weight used at every step), else new.
    TensorPtr gw_up = accumulator_arg(fn, "gW_up_acc", gw_up_acc_obj, {G, s.I});
    TensorPtr gb = with_bias ? accumulator_arg(fn, "gb_acc", gb_acc_obj, {G}) : nullptr;
    TensorPtr gw_lat = h ? accumulator_arg(fn, "gW_lat_acc", gw_lat_acc_obj, {G, s.N}) : nullptr;
    const float up_beta = gw_up ? 1.0f : 0.0f, lat_beta = gw_lat ? 1.0f : 0.0f;
    const bool b_add = gb != nullptr;
    if (!gw_up) gw_up = new_plain({G, s.I});
    if (with_bias && !gb) gb = new_plain({G});
    if (h && !gw_lat) gw_lat = new_plain({G, s.N});
    TensorPtr gh_prev = h ? new_plain({s.Bx, s.N}) : nullptr;
    guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()); }, [&] {
        py::gil_scoped_release release;
        ThreadLimit limit(step_threads(s));
        const CellShapes cs{s.B, s.Bx, s.N, 1};
        float* gg = fptr(ggates);
        cell_backward(cs, fptr(gates), fptr(c), fptr(gc), fptr(gh), fptr(gcp), gg);
        sgemm('N', 'N', s.Bx, s.I, G, gg, G, fptr(w_up), s.I, 0.0f, fptr(gx), s.I);
        sgemm('T', 'N', G, s.I, s.Bx, gg, G, fptr(x), s.I, up_beta, fptr(gw_up), s.I);
        if (h) {
            sgemm('N', 'N', s.Bx, s.N, G, gg, G, fptr(w_lat), s.N, 0.0f, fptr(gh_prev), s.N);
            sgemm('T', 'N', G, s.N, s.Bx, gg, G, fptr(h), s.N, lat_beta, fptr(gw_lat), s.N);
        }
        if (gb) {
            float* b = fptr(gb);
            if (!b_add) std::fill(b, b + G, 0.0f);
            for (i64 r = 0; r < s.Bx; ++r) {
                for (i64 j = 0; j < G; ++j) b[j] += gg[r * G + j];
            }
        }
    });
    auto opt = [](const TensorPtr& t) { return t ? py::cast(t) : py::object(py::none()); };
    return py::make_tuple(gcp, gx, gw_up, opt(gb), opt(gh_prev), opt(gw_lat));
}

// The 2-D float32 arrays (or Tensors) stacked row-wise into one plain
// Tensor from the pool, copied on the OpenMP team: a layer's gate matrices
// in the order the kernels want. numpy.concatenate took 3 ms per layer of
// the PTB model (13.5 MB into freshly mapped pages, one thread).
TensorPtr stack_rows(const py::list& arrays) {
    constexpr const char* fn = "rnn_stack_rows";
    if (arrays.empty()) throw py::value_error(std::string(fn) + ": expected at least one array");
    std::vector<TensorPtr> parts;
    i64 rows = 0, cols = -1;
    for (const py::handle& a : arrays) {
        TensorPtr t = as_tensor(fn, "arrays[i]", a);
        if (t->ndim() != 2 || (cols >= 0 && t->shape()[1] != cols)) {
            throw py::value_error(std::string(fn) + ": expected 2-D arrays with " +
                                  (cols >= 0 ? std::to_string(cols) : std::string("the same")) +
                                  " columns, got " + shape_str(t->shape()));
        }
        cols = t->shape()[1];
        rows += t->shape()[0];
        parts.push_back(in_layout(t, plain_desc(to_dims(t->shape()))));
    }
    TensorPtr out = new_plain({rows, cols});
    std::vector<const float*> src;
    std::vector<i64> begin;  // first float of each part in out
    i64 at = 0;
    for (const TensorPtr& t : parts) {
        src.push_back(static_cast<const float*>(t->data()));
        begin.push_back(at);
        at += t->shape()[0] * cols;
    }
    float* dst = fptr(out);
    const i64 total = at;
    {
        py::gil_scoped_release release;
        // Equal shares of the whole copy, each cut at the parts' borders.
        const int nt = total >= (i64{1} << 18) ? max_threads() : 1;
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
        for (int k = 0; k < nt; ++k) {
            const i64 lo = total * k / nt, hi = total * (k + 1) / nt;
            for (std::size_t p = 0; p < src.size(); ++p) {
                const i64 pb = begin[p], pe = p + 1 < src.size() ? begin[p + 1] : total;
                const i64 b = std::max(lo, pb), e = std::min(hi, pe);
                if (b < e) std::memcpy(dst + b, src[p] + (b - pb), static_cast<std::size_t>(e - b) * sizeof(float));
            }
        }
    }
    return out;
}

// Views (no copy) of consecutive row blocks of a plain tensor: sizes[i] rows
// each, shaped (sizes[i], ...) or, with squeeze, without the row axis.
py::list split_rows(const TensorPtr& t, const std::vector<i64>& sizes, bool squeeze) {
    constexpr const char* fn = "rnn_split_rows";
    if (!t || t->ndim() < 1 || !t->is_plain() || !t->owner() ||
        t->desc().get_data_type() != f32) {
        throw py::value_error(std::string(fn) + ": expected a plain float32 tensor");
    }
    const Shape& shape = t->shape();
    i64 rows = 0;
    for (i64 n : sizes) {
        if (n < 1 || (squeeze && n != 1)) {
            throw py::value_error(std::string(fn) + ": expected positive row counts (1 with "
                                  "squeeze)");
        }
        rows += n;
    }
    if (rows != shape[0]) {
        throw py::value_error(std::string(fn) + ": expected row counts summing to " +
                              std::to_string(shape[0]) + ", got " + std::to_string(rows));
    }
    i64 row_size = 1;
    for (std::size_t i = 1; i < shape.size(); ++i) row_size *= shape[i];
    py::list out;
    float* p = fptr(t);
    for (i64 n : sizes) {
        Shape piece(shape.begin() + (squeeze ? 1 : 0), shape.end());
        if (!squeeze) piece[0] = n;
        if (piece.empty()) piece.push_back(1);
        out.append(Tensor::wrap(plain_desc(to_dims(piece)), piece, p, t->owner()));
        p += n * row_size;
    }
    return out;
}

}  // namespace

void register_rnn(py::module_& m) {
    py::class_<LayerContext, LayerPtr>(m, "RnnContext",
                                       "What rnn_backward needs of one rnn_forward call: the "
                                       "inputs, per-segment states and oneDNN workspaces of "
                                       "every stream (direction, batch part).")
        .def_property_readonly("n_streams",
                               [](const LayerContext& c) { return c.streams.size(); })
        .def_property_readonly("n_segments",
                               [](const LayerContext& c) {
                                   std::size_t n = 0;
                                   for (const ContextPtr& s : c.streams) n += s->segments.size();
                                   return n;
                               })
        .def_property_readonly("workspace_bytes", [](const LayerContext& c) {
            std::size_t n = 0;
            for (const ContextPtr& s : c.streams) {
                for (const Segment& g : s->segments) {
                    if (g.workspace) n += g.workspace.get_desc().get_size();
                }
            }
            return n;
        });
    m.def("rnn_forward", &rnn_forward, py::arg("cell"), py::arg("training"), py::arg("batches"),
          py::arg("xs"), py::arg("hxs"), py::arg("cxs"), py::arg("w_layers"),
          py::arg("w_iters"), py::arg("biases"),
          R"doc(One recurrent layer, one or both directions, over packed variable-length steps.

cell: 'lstm', 'gru' (linear-before-reset), 'rnn_tanh' or 'rnn_relu'.
batches[t]: the rows of step t (non-increasing). Per direction (a list of 1
or 2; the second runs from the last step to the first, both at once on
separate threads): xs: (sum(batches), C) the packed time-major rows; hxs,
cxs: (B, N) initial states, B >= batches[0] (cxs only for lstm, else None);
w_layers: (G * N, C) and w_iters: (G * N, N), the gate matrices stacked in
oneDNN's gate order (LSTM i, f, c~, o; GRU u, r, o); biases: (G', N)
(G' = 4 for the GRU: u, r, o and the hidden bias of o). With more threads
than directions the batch rows are also dealt out to parts run side by side.
Returns (context or None when not training, y (rows, D * N) with direction d in columns
[d * N, (d + 1) * N), hys, cys or None).
)doc");
    m.def("rnn_backward", &rnn_backward, py::arg("context"), py::arg("gy"), py::arg("ghys"),
          py::arg("gcys") = py::none(), py::arg("need_gx") = true,
          R"doc(Gradients of one rnn_forward call.

gy: (rows, D * N), the gradient of y; ghys, gcys: per direction (B, N).
Returns per-direction lists (gxs, ghxs, gcxs or None, gw_layers, gw_iters,
gbiases) in the layouts rnn_forward took; gxs holds None per direction when
need_gx is false (the gradient of the layer's input is not wanted).
)doc");
    m.def("rnn_stack_rows", &stack_rows, py::arg("arrays"),
          "The 2-D float32 arrays (same number of columns) stacked row-wise into one plain "
          "Tensor (numpy.concatenate(arrays, axis=0)), copied on the OpenMP team.");
    m.def("rnn_split_rows", &split_rows, py::arg("tensor"), py::arg("sizes"),
          py::arg("squeeze") = false,
          "Views (no copy) of consecutive row blocks of a plain tensor, sizes[i] rows each; "
          "with squeeze (every size 1) without the row axis.");
    m.def("lstm_cell_forward", &lstm_cell_forward, py::arg("c_prev"), py::arg("x"),
          R"doc(F.lstm's cell: (c, h) from c_prev (B, N, ...) and the interleaved gate
pre-activations x (B' <= B, 4N, ...); rows of c beyond B' keep c_prev.
)doc");
    m.def("lstm_cell_backward", &lstm_cell_backward, py::arg("c_prev"), py::arg("x"),
          py::arg("gc"), py::arg("gh"),
          "Gradients (gc_prev, gx) of lstm_cell_forward given gc (like c_prev) and gh.");
    m.def("lstm_step_forward", &lstm_step_forward, py::arg("c_prev"), py::arg("x"),
          py::arg("W_up"), py::arg("b_up"), py::arg("h"), py::arg("W_lat"),
          R"doc(L.LSTM's step fused: gates = x W_up^T + b_up + h W_lat^T (h, W_lat and
b_up may be None), then F.lstm's cell on c_prev (B, N) (x and h have B' <= B
rows). Returns (c, h_new, gates); keep gates for lstm_step_backward.
)doc");
    m.def("lstm_step_backward", &lstm_step_backward, py::arg("c_prev"), py::arg("x"),
          py::arg("W_up"), py::arg("with_bias"), py::arg("h"), py::arg("W_lat"),
          py::arg("gates"), py::arg("gc"), py::arg("gh"), py::arg("gW_up_acc") = py::none(),
          py::arg("gb_acc") = py::none(), py::arg("gW_lat_acc") = py::none(),
          "Gradients (gc_prev, gx, gW_up, gb_up or None, gh or None, gW_lat or None) of "
          "lstm_step_forward given gc (like c_prev) and gh (like h_new). A weight "
          "gradient's accumulator (a plain Tensor or writeable float32 array of its shape) "
          "gets the gradient added in place and is returned in its place.");
}

}  // namespace cpuframe
