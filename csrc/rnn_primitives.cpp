// GRU and vanilla RNN layers on oneDNN's RNN primitives: see rnn_primitives.hpp.
#include "rnn_primitives.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "array_utils.hpp"
#include "engine.hpp"
#include "primitive_cache.hpp"
#include "tensor.hpp"

namespace cpuframe::rnn {

namespace {

using dnnl::rnn_direction;

// -- descs ----------------------------------------------------------------------

// (T, B, C) time-major rows with a row stride of ld floats (ld >= C: a column
// slice of a wider packed matrix).
memory::desc layer_md(i64 T, i64 B, i64 C, i64 ld) {
    return memory::desc({T, B, C}, f32, dims{B * ld, ld, 1});
}

memory::desc iter_md(i64 B, i64 C) { return memory::desc({1, 1, B, C}, f32, tag::ldnc); }

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

// A library-allocated (B, N) state buffer.
memory new_state(i64 B, i64 N) { return memory(iter_md(B, N), cpu_engine()); }

float* state_ptr(const memory& m) { return static_cast<float*>(m.get_data_handle()); }

}  // namespace

Cell parse_cell(const char* fn, const std::string& name) {
    if (name == "lstm") return {CellKind::lstm, algorithm::undef, 4, 4, true, name};
    if (name == "gru") return {CellKind::gru, algorithm::undef, 3, 4, false, name};
    if (name == "rnn_tanh") return {CellKind::rnn, algorithm::eltwise_tanh, 1, 1, false, name};
    if (name == "rnn_relu") return {CellKind::rnn, algorithm::eltwise_relu, 1, 1, false, name};
    throw py::value_error(std::string(fn) +
                          ": expected cell 'lstm', 'gru', 'rnn_tanh' or 'rnn_relu', got '" +
                          name + "'");
}

memory::desc weights_md(i64 C, i64 G, i64 N, tag t) {
    return memory::desc({1, 1, C, G, N}, f32, t);
}

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

}  // namespace cpuframe::rnn
