// The element-wise LSTM cell of F.lstm and the fused step of L.LSTM.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>

#include "array_utils.hpp"
#include "engine.hpp"
#include "gemm.hpp"
#include "gemm_bf16.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "rnn_common.hpp"
#include "tensor.hpp"
#include "threads.hpp"

namespace cpuframe {

namespace {

using namespace rnn;

// -- the LSTM cell of F.lstm ----------------------------------------------------------
//
// x (B', 4N, S...) holds the gate pre-activations interleaved per unit (a, i,
// f, o: channel 4k + g is gate g of unit k), c_prev (B, N, S...) with B' <= B.
// Transcendentals run on oneDNN's vectorized eltwise primitives over flat
// buffers; the products run in plain loops the compiler vectorizes.

memory::desc flat_md(i64 n) { return memory::desc({n}, f32, tag::a); }

// The cached eltwise primitive alg over n floats.
dnnl::primitive eltwise_primitive(PrimitiveCache& cache, algorithm alg, i64 n) {
    PrimitiveKey key("lstm_cell_eltwise");
    key.algorithm(alg).shape({n});
    return cache.get_or_create(key, [&] {
        const memory::desc md = flat_md(n);
        return dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(
            cpu_engine(), prop_kind::forward_inference, alg, md, md, 0.0f, 0.0f, op_attr()));
    });
}

// dst = alg(src) over n floats (src and dst may be the same buffer).
//
// Each thread keeps its last few (alg, n) primitives with a source and a
// destination memory pointed at each call's buffers: a step runs three of
// them per pass with the same sizes, and at the sizes of a small model
// (batch 1, 128 units: 512 floats) looking the primitive up by its key and
// creating two memories cost ~15x the kernel itself. The primitives come
// from the shared cache, and are let go when it is cleared or resized
// (none is kept while it is disabled); the memories are this thread's
// alone.
void eltwise(algorithm alg, const float* src, float* dst, i64 n) {
    if (n == 0) return;
    struct Kept {
        algorithm alg;
        i64 n;
        dnnl::primitive p;
        memory src, dst;
    };
    constexpr std::size_t kKept = 8;
    thread_local std::vector<Kept> kept;
    thread_local std::uint64_t kept_generation = 0;
    PrimitiveCache& cache = PrimitiveCache::global();
    const std::uint64_t generation = cache.generation();
    if (generation != kept_generation) {
        kept.clear();
        kept_generation = generation;
    }
    if (!cache.caching()) {
        const memory::desc md = flat_md(n);
        execute_here(eltwise_primitive(cache, alg, n),
                     {{DNNL_ARG_SRC, mem_at(md, const_cast<float*>(src))},
                      {DNNL_ARG_DST, mem_at(md, dst)}});
        return;
    }
    Kept* k = nullptr;
    for (Kept& e : kept) {
        if (e.alg == alg && e.n == n) {
            k = &e;
            break;
        }
    }
    if (k == nullptr) {
        const memory::desc md = flat_md(n);
        if (kept.size() == kKept) kept.erase(kept.begin());
        kept.push_back(Kept{alg, n, eltwise_primitive(cache, alg, n),
                            memory(md, cpu_engine(), nullptr), memory(md, cpu_engine(), nullptr)});
        k = &kept.back();
    }
    k->src.set_data_handle(const_cast<float*>(src));
    k->dst.set_data_handle(dst);
    execute_here(k->p, {{DNNL_ARG_SRC, k->src}, {DNNL_ARG_DST, k->dst}});
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

// This thread's activations for one cell pass, kept between calls (four
// allocations a step otherwise) unless they grew past kKeptCellActs bytes.
constexpr std::size_t kKeptCellActs = std::size_t{1} << 20;

class ThreadCellActs {
public:
    ThreadCellActs() : a_(mine()) {}
    ~ThreadCellActs() {
        const std::size_t bytes =
            (a_.sig.capacity() + a_.ta.capacity() + a_.c.capacity() + a_.tc.capacity()) *
            sizeof(float);
        if (bytes > kKeptCellActs) a_ = CellActs();
    }
    ThreadCellActs(const ThreadCellActs&) = delete;
    ThreadCellActs& operator=(const ThreadCellActs&) = delete;
    CellActs& get() { return a_; }

private:
    static CellActs& mine() {
        thread_local CellActs a;
        return a;
    }
    CellActs& a_;
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
    ThreadCellActs kept;
    CellActs& a = kept.get();
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
    ThreadCellActs kept;
    CellActs& a = kept.get();
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
//
// bf16 (mixed_bf16): exactly what the unfused step computes in the mode
// (upward and lateral Linear, each rounding its inputs and output, then
// F.lstm in float32): x, h and the weights read as bf16 with float32
// accumulation, x W_up^T + b and h W_lat^T each rounded to bf16 and added
// in float32, the cell, c and h float32. Backward the gates' gradient is
// rounded for the GEMMs, the gradients of x and h rounded (Linear's input
// gradient), the weight and bias gradients float32. The weights' bf16
// copies are kept until written (slot 0: W^T packed for the forward, slot
// 1: W packed for the input gradients).

// (sgemm: csrc/gemm.hpp)

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
    if (t->plain_as(f32)) return t;
    return in_layout(t, plain_desc(to_dims(t->shape())));
}

// L.LSTM's fused step runs on the calling thread below this many
// multiply-adds. The step is called from Python once per time step, between
// other layers' ops; when those run on NumPy's BLAS (the Linear layers of a
// small model under 'auto'), BLAS's threads are still spinning when the step
// starts, and an OpenMP team of its own then waits at every barrier for a
// core: on a Zen 3 (2 vCPU) a step of batch 20 and 100 units took 1368 us
// after a 100x1000 NumPy product with two threads (78 us alone), and a
// PTB-style model of that size (benchmarks/examples/ptb_rnnlm.py) 1.5 s
// against 0.42-0.47 s on one thread. The same bound as Linear's oneDNN route
// on device arrays under 'auto' (AUTO_MIN['linear_on_device']): from there
// on the model's products run on oneDNN's team too.
constexpr i64 step_one_thread_macs = i64{1} << 24;

int step_threads(const StepShapes& s) {
    return s.Bx * (s.I + s.N) * 4 * s.N < step_one_thread_macs ? 1 : max_threads();
}

// obj (rows x cols) as a plain bf16 Tensor (rounded when float32).
TensorPtr plain_bf16(const char* fn, const char* arg, const py::object& obj) {
    TensorPtr t = as_tensor_any(fn, arg, obj);
    return in_layout(t, plain_desc(to_dims(t->shape()), memory::data_type::bf16));
}

// The step's arrays: plain float32 ones; with bf16, x and h plain bf16 and
// the weights as they are (their kept bf16 copies). h and W_lat may be None.
struct StepInputs {
    TensorPtr c, x, w_up, h, w_lat;
};

StepInputs step_inputs(const char* fn, const py::object& c_obj, const py::object& x_obj,
                       const py::object& w_up_obj, const py::object& h_obj,
                       const py::object& w_lat_obj, bool bf16) {
    auto activation = [&](const char* arg, const py::object& obj) {
        return obj.is_none() ? nullptr
               : bf16        ? plain_bf16(fn, arg, obj)
                             : optional_plain(fn, arg, obj);
    };
    auto weight = [&](const char* arg, const py::object& obj) {
        return obj.is_none() ? nullptr : bf16 ? as_tensor(fn, arg, obj) : optional_plain(fn, arg, obj);
    };
    StepInputs in{optional_plain(fn, "c_prev", c_obj), activation("x", x_obj),
                  weight("W_up", w_up_obj), activation("h", h_obj), weight("W_lat", w_lat_obj)};
    if (!in.c || !in.x || !in.w_up || (in.h && !in.w_lat)) {
        throw py::value_error(std::string(fn) + ": expected c_prev, x, W_up (and W_lat with h)");
    }
    return in;
}

void round_in_place(float* p, i64 n) {
    for (i64 k = 0; k < n; ++k) p[k] = from_bf16(to_bf16(p[k]));
}

py::tuple lstm_step_forward(const py::object& c_obj, const py::object& x_obj,
                            const py::object& w_up_obj, const py::object& b_up_obj,
                            const py::object& h_obj, const py::object& w_lat_obj, bool bf16) {
    constexpr const char* fn = "lstm_step_forward";
    const StepInputs in = step_inputs(fn, c_obj, x_obj, w_up_obj, h_obj, w_lat_obj, bf16);
    const TensorPtr &c = in.c, &x = in.x, &w_up = in.w_up, &h = in.h, &w_lat = in.w_lat;
    TensorPtr b_up = optional_plain(fn, "b_up", b_up_obj);
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
        if (bf16) {
            gemm_bf16('N', s.Bx, bptr(x), s.I, pack_weight(w_up, true, s.Bx, 0), beta, g, G);
            round_in_place(g, s.Bx * G);
            if (h) {
                std::vector<float> lat(static_cast<std::size_t>(s.Bx * G));
                gemm_bf16('N', s.Bx, bptr(h), s.N, pack_weight(w_lat, true, s.Bx, 0), 0.0f,
                          lat.data(), G);
                for (i64 k = 0; k < s.Bx * G; ++k) g[k] += from_bf16(to_bf16(lat[k]));
            }
        } else {
            sgemm('N', 'T', s.Bx, G, s.I, fptr(x), s.I, fptr(w_up), s.I, beta, g, G);
            if (h) sgemm('N', 'T', s.Bx, G, s.N, fptr(h), s.N, fptr(w_lat), s.N, 1.0f, g, G);
        }
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
                             const py::object& gw_lat_acc_obj, bool bf16) {
    constexpr const char* fn = "lstm_step_backward";
    const StepInputs in = step_inputs(fn, c_obj, x_obj, w_up_obj, h_obj, w_lat_obj, bf16);
    const TensorPtr &c = in.c, &x = in.x, &w_up = in.w_up, &h = in.h, &w_lat = in.w_lat;
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
        if (bf16) {
            std::vector<bf16_t> ggb(static_cast<std::size_t>(s.Bx * G));
            to_bf16_rows(gg, G, ggb.data(), G, s.Bx, G);
            gemm_bf16('N', s.Bx, ggb.data(), G, pack_weight(w_up, false, s.Bx, 1), 0.0f,
                      fptr(gx), s.I);
            round_in_place(fptr(gx), s.Bx * s.I);
            gemm_bf16('T', 'N', G, s.I, s.Bx, ggb.data(), G, bptr(x), s.I, up_beta,
                      fptr(gw_up), s.I);
            if (h) {
                gemm_bf16('N', s.Bx, ggb.data(), G, pack_weight(w_lat, false, s.Bx, 1), 0.0f,
                          fptr(gh_prev), s.N);
                round_in_place(fptr(gh_prev), s.Bx * s.N);
                gemm_bf16('T', 'N', G, s.N, s.Bx, ggb.data(), G, bptr(h), s.N, lat_beta,
                          fptr(gw_lat), s.N);
            }
        } else {
            sgemm('N', 'N', s.Bx, s.I, G, gg, G, fptr(w_up), s.I, 0.0f, fptr(gx), s.I);
            sgemm('T', 'N', G, s.I, s.Bx, gg, G, fptr(x), s.I, up_beta, fptr(gw_up), s.I);
            if (h) {
                sgemm('N', 'N', s.Bx, s.N, G, gg, G, fptr(w_lat), s.N, 0.0f, fptr(gh_prev), s.N);
                sgemm('T', 'N', G, s.N, s.Bx, gg, G, fptr(h), s.N, lat_beta, fptr(gw_lat), s.N);
            }
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
}  // namespace

void register_lstm_cell(py::module_& m) {
    m.def("lstm_cell_forward", &lstm_cell_forward, py::arg("c_prev"), py::arg("x"),
          R"doc(F.lstm's cell: (c, h) from c_prev (B, N, ...) and the interleaved gate
pre-activations x (B' <= B, 4N, ...); rows of c beyond B' keep c_prev.
)doc");
    m.def("lstm_cell_backward", &lstm_cell_backward, py::arg("c_prev"), py::arg("x"),
          py::arg("gc"), py::arg("gh"),
          "Gradients (gc_prev, gx) of lstm_cell_forward given gc (like c_prev) and gh.");
    m.def("lstm_step_forward", &lstm_step_forward, py::arg("c_prev"), py::arg("x"),
          py::arg("W_up"), py::arg("b_up"), py::arg("h"), py::arg("W_lat"),
          py::arg("bf16") = false,
          R"doc(L.LSTM's step fused: gates = x W_up^T + b_up + h W_lat^T (h, W_lat and
b_up may be None), then F.lstm's cell on c_prev (B, N) (x and h have B' <= B
rows). Returns (c, h_new, gates); keep gates for lstm_step_backward. bf16:
the mixed_bf16 mode's unfused step exactly (bf16 GEMMs, each Linear's output
rounded; the cell float32).
)doc");
    m.def("lstm_step_backward", &lstm_step_backward, py::arg("c_prev"), py::arg("x"),
          py::arg("W_up"), py::arg("with_bias"), py::arg("h"), py::arg("W_lat"),
          py::arg("gates"), py::arg("gc"), py::arg("gh"), py::arg("gW_up_acc") = py::none(),
          py::arg("gb_acc") = py::none(), py::arg("gW_lat_acc") = py::none(),
          py::arg("bf16") = false,
          "Gradients (gc_prev, gx, gW_up, gb_up or None, gh or None, gW_lat or None) of "
          "lstm_step_forward given gc (like c_prev) and gh (like h_new). A weight "
          "gradient's accumulator (a plain Tensor or writeable float32 array of its shape) "
          "gets the gradient added in place and is returned in its place. bf16: as for "
          "lstm_step_forward (the gradients of x and h rounded to bf16 values).");
}

}  // namespace cpuframe
