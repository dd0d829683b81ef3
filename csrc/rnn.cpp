// Recurrent networks: the layers of n_step_lstm / n_step_gru / n_step_rnn (and
// their bidirectional forms), and their Python registration. The element-wise
// LSTM cell of F.lstm and L.LSTM's fused step are in lstm_cell.cpp.
//
// One call of rnn_forward runs one layer, one or both directions, over packed,
// time-major, variable-length sequences: the rows of xs[0], xs[1], ...
// concatenated, xs[t] holding the B_t sequences still running at time t
// (B_0 >= B_1 >= ...).
//
// LSTM layers run on our own kernels (lstm_layer.hpp): one GEMM for the input
// side of all steps, per step one GEMM and a fused, vectorized gate pass over
// the B_t rows still running, and for the gradients one GEMM per step plus
// the weight and input GEMMs over all steps at once.
//
// GRU and vanilla RNN layers run on oneDNN's RNN primitives, in segments of
// constant batch (rnn_primitives.hpp).
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
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "array_utils.hpp"
#include "engine.hpp"
#include "gru_layer.hpp"
#include "lstm_layer.hpp"
#include "ops.hpp"
#include "rnn_common.hpp"
#include "rnn_primitives.hpp"
#include "tensor.hpp"
#include "threads.hpp"

namespace cpuframe {

namespace {

using namespace rnn;

int threads_for(i64 batch, i64 C, i64 N, i64 G) {
    return batch * (C + N) * G * N < small_step_macs ? 1 : max_threads();
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
struct LayerContext {
    Cell cell;
    i64 D = 1, P = 1, C = 0, N = 0, B = 0, R = 0;
    std::vector<i64> batches;
    std::vector<ContextPtr> streams;  // direction-major: d * P + p
    std::shared_ptr<LstmLayer> lstm;  // LSTM layers: our own kernels, no streams
    std::shared_ptr<GruLayer> gru;    // GRU layers in mixed_bf16: our own kernels
};

using LayerPtr = std::shared_ptr<LayerContext>;

py::tuple rnn_forward(const std::string& cell_name, bool training,
                      const std::vector<i64>& batches, const py::object& xs_obj,
                      const py::object& hxs_obj, const py::object& cxs_obj,
                      const py::object& wls_obj, const py::object& wis_obj,
                      const py::object& biases_obj, bool bf16) {
    constexpr const char* fn = "rnn_forward";
    const Cell cell = parse_cell(fn, cell_name);
    if (bf16 && cell.kind == CellKind::rnn) {
        throw py::value_error(std::string(fn) + ": bf16 is implemented for lstm and gru layers, "
                              "got " + cell.name);
    }
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

    TensorPtr x0 = as_tensor_any(fn, "x", xs[0]);  // (its shape)
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
    TensorPtr y = bf16 ? Tensor::empty(plain_desc({R, y_cols}, memory::data_type::bf16), {R, y_cols})
                       : new_plain({R, y_cols});

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
        ins[d].x = plain_input(fn, "x", xs[d], {R, C}, bf16 ? memory::data_type::bf16 : f32);
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
        L->set_steps(static_cast<i64>(D), C, N, B, R, batches);
        L->bf16 = bf16;
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
            (bf16 ? s.xb : s.x) = ins[d].x;
            s.wl = ins[d].wl;
            s.wi = ins[d].wi;
            s.bias = ins[d].b;
            s.hx = ins[d].hx;
            s.cx = ins[d].cx;
            if (bf16) {
                s.hprev_b = Tensor::empty(plain_desc({R, N}, memory::data_type::bf16), {R, N});
            } else {
                s.wi_t = new_plain({N, G * N});
                s.hprev = new_plain({R, N});
            }
            s.gates = new_plain({R, G * N});
            s.cs = new_plain({R, N});
            s.cprev = new_plain({R, N});
            s.hy = new_plain({B, N});
            s.cy = new_plain({B, N});
        }
        guard_dnnl(fn, what, [&] {
            ThreadLimit limit(threads);
            // A direction's own stream prepares it when it runs alone; its
            // parts share the team's work done first.
            auto prepare = [&](LstmDir& s) {
                if (bf16) {
                    s.wl_fwd = pack_b('T', C, G * N, fptr(s.wl), C, f32, R);
                    s.wi_fwd = pack_b('T', N, G * N, fptr(s.wi), N, f32,
                                      L->bounds[1] - L->bounds[0]);
                } else {
                    transpose(fptr(s.wi), G * N, N, fptr(s.wi_t));
                }
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
    if (bf16) {  // a GRU layer (the LSTM returned above)
        auto L = std::make_shared<GruLayer>();
        L->set_steps(static_cast<i64>(D), C, N, B, R, batches);
        L->y = y;
        L->dirs.resize(D);
        for (std::size_t d = 0; d < D; ++d) {
            GruDir& s = L->dirs[d];
            s.reverse = d == 1;
            s.xb = ins[d].x;
            s.wl = ins[d].wl;
            s.wi = ins[d].wi;
            s.bias = ins[d].b;
            s.hx = ins[d].hx;
            s.gates = new_plain({R, G * N});
            s.hn = new_plain({R, N});
            s.hprev = new_plain({R, N});
            s.hprev_b = Tensor::empty(plain_desc({R, N}, memory::data_type::bf16), {R, N});
            s.hy = new_plain({B, N});
        }
        guard_dnnl(fn, what, [&] {
            ThreadLimit limit(threads);
            run_concurrently(D, [&](std::size_t d, int) {
                gru_forward(*L, L->dirs[d], static_cast<i64>(d));
            });
        });
        py::list hys;
        for (std::size_t d = 0; d < D; ++d) hys.append(L->dirs[d].hy);
        layer->gru = L;
        return py::make_tuple(training ? py::cast(layer) : py::object(py::none()), y, hys,
                              py::none());
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
            if (L.bf16) {
                py::gil_scoped_release release;
                for (i64 d = 0; d < D; ++d) lstm_prepare_backward(L, L.dirs[d], outs[d]);
            }
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
    if (layer->gru) {
        const GruLayer& L = *layer->gru;
        std::vector<GruGrads> outs(D);
        for (i64 d = 0; d < D; ++d) {
            GruGrads& o = outs[d];
            if (need_gx) o.gx = new_plain({R, C});
            o.ghx = new_plain({B, N});
            copy_rows(fptr(o.ghx), fptr(ghy[d]), B, N);
            o.gwl = new_plain({G * N, C});
            o.gwi = new_plain({G * N, N});
            o.gb = new_plain({cell.bias_gates, N});
            o.dgx = new_plain({R, G * N});
            o.dgh = new_plain({R, G * N});
            o.dgx_b = Tensor::empty(plain_desc({R, G * N}, memory::data_type::bf16), {R, G * N});
            o.dgh_b = Tensor::empty(plain_desc({R, G * N}, memory::data_type::bf16), {R, G * N});
        }
        guard_dnnl(fn, [&] { return cell.name + " rows " + std::to_string(R); }, [&] {
            ThreadLimit limit(threads_for(layer->batches[0], C, N, G));
            run_concurrently(static_cast<std::size_t>(D), [&](std::size_t d, int) {
                gru_backward(L, L.dirs[d], static_cast<i64>(d), fptr(gy), outs[d]);
            });
        });
        py::list gxs, ghxs, gwls, gwis, gbs;
        for (i64 d = 0; d < D; ++d) {
            gxs.append(outs[d].gx ? py::cast(outs[d].gx) : py::object(py::none()));
            ghxs.append(outs[d].ghx);
            gwls.append(outs[d].gwl);
            gwis.append(outs[d].gwi);
            gbs.append(outs[d].gb);
        }
        return py::make_tuple(gxs, ghxs, py::none(), gwls, gwis, gbs);
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
        (t->dtype() != f32 && t->dtype() != memory::data_type::bf16)) {
        throw py::value_error(std::string(fn) + ": expected a plain float32 or bfloat16 tensor");
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
    char* p = static_cast<char*>(t->data());
    const i64 item = static_cast<i64>(memory::data_type_size(t->dtype()));
    for (i64 n : sizes) {
        Shape piece(shape.begin() + (squeeze ? 1 : 0), shape.end());
        if (!squeeze) piece[0] = n;
        if (piece.empty()) piece.push_back(1);
        out.append(Tensor::wrap(plain_desc(to_dims(piece), t->dtype()), piece, p, t->owner()));
        p += n * row_size * item;
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
          py::arg("w_iters"), py::arg("biases"), py::arg("bf16") = false,
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
bf16 (lstm and gru; the mixed_bf16 mode): GEMMs on bf16 operands with
float32 accumulation, h rounded to bf16 at every step, y stored as bf16 (see
csrc/lstm_layer.hpp, csrc/gru_layer.hpp).
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
          "Views (no copy) of consecutive row blocks of a plain (float32 or bfloat16) tensor, "
          "sizes[i] rows each; "
          "with squeeze (every size 1) without the row axis.");
}

}  // namespace cpuframe
