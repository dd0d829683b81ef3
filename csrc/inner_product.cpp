// Fully connected layers (Chainer's linear) on oneDNN's inner product: forward
// with bias, backward data, backward weights. x is (N, I), W is (O, I).
// Layout policy as in convolution.cpp: a plain weight Tensor adopts the layout
// the forward primitive wants (once, in place), and weight gradients come out
// in the weight's layout. One exception, measured on this CPU (oneDNN v3.2,
// AVX-512): for a large batch and an output much wider than the input (a
// language model's softmax layer, 700 x 650 -> 10000), backward data on the
// blocked layout (brgemm_bwd_d) runs at a third of the speed of gemm:jit on
// plain weights, while the forward is equally fast on both; such weights stay
// plain (see keep_plain_weights).
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "array_utils.hpp"
#include "engine.hpp"
#include "gemm.hpp"
#include "gemm_bf16.hpp"
#include "layout_offer.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using dnnl::prop_kind;
using dnnl::query;
using dims = memory::dims;
using ip_fwd = dnnl::inner_product_forward;
using ip_bwd_data = dnnl::inner_product_backward_data;
using ip_bwd_weights = dnnl::inner_product_backward_weights;

// Whether a layer x (n, in) -> (n, out) keeps plain weights: for an output
// much wider than the input, backward data is 2-3x faster on plain weights
// (brgemm_bwd_d on the blocked layout: 2.5 against 1.2 ms for 20 x 650 ->
// 10000, 30 against 28 ms for 700 rows), the weight gradient can be
// accumulated where it is computed (linear_backward_weights' acc), and the
// forward loses at most a third of a millisecond of that (1.8 against 1.3
// ms at 20 rows). Measured for in 650, out 10000, n 16..700 (AVX-512, oneDNN
// v3.2). Elsewhere the blocked layout wins, by up to 3x in the forward for
// small batches of square layers (16 x 4096 -> 4096: 2.6 against 7.1 ms).
bool keep_plain_weights(std::int64_t n, std::int64_t in, std::int64_t out) {
    return n >= 16 && out >= 4 * in;
}

void check_2d(const char* fn, const char* arg, const TensorPtr& t) {
    if (t->ndim() != 2) {
        throw py::value_error(std::string(fn) + ": expected " + arg + " with 2 dimensions, got " +
                              shape_str(t->shape()));
    }
}

ip_fwd::primitive_desc fwd_pd(const memory::desc& x, const memory::desc& w, std::int64_t bias,
                              const memory::desc& y, bool allow_empty) {
    if (bias > 0) {
        return ip_fwd::primitive_desc(cpu_engine(), prop_kind::forward_training, x, w,
                                      plain_desc({bias}), y, op_attr(), allow_empty);
    }
    return ip_fwd::primitive_desc(cpu_engine(), prop_kind::forward_training, x, w, y,
                                  op_attr(), allow_empty);
}

// Whether oneDNN's kernel for the weight gradient of this layer is gemm:jit,
// which computes it plain (or transposed), while its forward wants blocked
// weights. Blocked weights then cost a reorder of the whole weight gradient
// every step: on AVX2 (oneDNN 3.2 has no brgemm backward-weights kernel
// there) AlexNet's fc6 spent 23 ms per step reordering its gradient beside a
// 24 ms forward, the PTB model's stepwise softmax layer 87 ms per step of
// 35. Such weights stay plain. Asked once per weight shape, for a batch of 32 whatever the batch:
// a weight's layout is settled by its first call and must not depend on the
// batch that call had (a batch of varying size would otherwise meet a layout
// it has no primitive for).
bool bwd_weights_plain(std::int64_t in, std::int64_t out, bool bias) {
    constexpr std::int64_t n = 32;
    static std::mutex mu;
    static std::unordered_map<std::string, bool> known;
    const std::string key = std::to_string(in) + "," + std::to_string(out) + (bias ? ",b" : "");
    {
        std::lock_guard<std::mutex> lock(mu);
        auto it = known.find(key);
        if (it != known.end()) return it->second;
    }
    const dims xd = {n, in}, wd = {out, in}, yd = {n, out};
    const ip_fwd::primitive_desc fwd =
        fwd_pd(any_md(xd), any_md(wd), bias ? out : 0, any_md(yd), false);
    const ip_bwd_weights::primitive_desc bwd =
        bias ? ip_bwd_weights::primitive_desc(cpu_engine(), any_md(xd), any_md(wd),
                                              plain_desc({out}), any_md(yd), fwd, op_attr())
             : ip_bwd_weights::primitive_desc(cpu_engine(), any_md(xd), any_md(wd), any_md(yd),
                                              fwd, op_attr());
    // gemm:jit computes the gradient plain (ab) or transposed (ba); only a
    // brgemm kernel writes the blocked layout the forward wants.
    const bool blocked_grad = std::strncmp(bwd.impl_info_str(), "brgemm", 6) == 0;
    const bool answer = !blocked_grad && !(fwd.weights_desc() == plain_desc(wd));
    std::lock_guard<std::mutex> lock(mu);
    known.emplace(key, answer);
    return answer;
}

TensorPtr linear_forward(const py::object& x_obj, const py::object& w_obj,
                         const py::object& b_obj) {
    constexpr const char* fn = "linear_forward";
    TensorPtr x = as_tensor_any(fn, "x", x_obj);
    TensorPtr W = as_tensor_any(fn, "W", w_obj);
    TensorPtr b = b_obj.is_none() ? nullptr : as_tensor(fn, "b", b_obj);
    check_2d(fn, "x", x);
    check_2d(fn, "W", W);
    const std::int64_t n = x->shape()[0], in = x->shape()[1], out = W->shape()[0];
    if (W->shape()[1] != in) {
        throw py::value_error(std::string(fn) + ": expected W.shape[1] == x.shape[1], got x " +
                              shape_str(x->shape()) + " and W " + shape_str(W->shape()));
    }
    if (b && (b->ndim() != 1 || b->shape()[0] != out)) {
        throw py::value_error(std::string(fn) + ": expected b of shape (" + std::to_string(out) +
                              ",), got " + shape_str(b->shape()));
    }
    return guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()) + " and W " +
                                       shape_str(W->shape()); }, [&] {
        const dims xd = {n, in}, wd = {out, in}, yd = {n, out};
        // bf16 when x is (mixed_bf16): W read as bf16 in the layout the
        // primitive wants (converted from the float32 master each call),
        // f32 accumulation and bias, bf16 y. The plain-weight policy below
        // was measured for float32 kernels only.
        const memory::data_type dt = compute_dt({&x});
        const bool plain = dt == memory::data_type::f32 && W->is_plain() &&
                           (keep_plain_weights(n, in, out) ||
                            bwd_weights_plain(in, out, b != nullptr));
        const memory::desc w_off = plain ? plain_desc(wd) : offered_md(W, wd, dt);
        auto make_key = [&](const memory::desc& w_md) {
            PrimitiveKey key("inner_product_forward");
            key.dtype(dt).shape(xd).shape(wd).option("bias", b != nullptr)
                .text("weights", md_text(w_md));
            return key;
        };
        dnnl::primitive ip = PrimitiveCache::global().get_or_create(make_key(w_off), [&] {
            if (plain) {
                ip_fwd::primitive_desc kept = fwd_pd(any_md(xd), w_off, b ? out : 0, any_md(yd), true);
                if (kept) return dnnl::primitive(ip_fwd(kept));
            }
            ip_fwd::primitive_desc any =
                fwd_pd(any_md(xd, dt), any_md(wd, dt), b ? out : 0, any_md(yd, dt), false);
            std::vector<memory::desc> tries;
            if (!is_any(w_off) && !plain) tries.push_back(w_off);
            return dnnl::primitive(ip_fwd(offered_or_any(any, tries, [&](const memory::desc& w) {
                return fwd_pd(any_md(xd, dt), w, b ? out : 0, any_md(yd, dt), true);
            })));
        });
        const memory::desc w_want = query_md(ip, query::weights_md);
        if (is_tensor(w_obj) && may_adopt(W, w_want)) {
            W->reorder_inplace(w_want);
            PrimitiveCache::global().get_or_create(make_key(w_want), [&] { return ip; });
        }
        std::vector<TensorPtr> keep;
        std::unordered_map<int, memory> args;
        args[DNNL_ARG_SRC] = arg_memory(x, query_md(ip, query::src_md), keep);
        args[DNNL_ARG_WEIGHTS] = weight_memory(W, w_want, keep);
        if (b) args[DNNL_ARG_BIAS] = arg_memory(b, query_md(ip, query::weights_md, 1), keep);
        TensorPtr y = Tensor::empty(query_md(ip, query::dst_md), {n, out});
        args[DNNL_ARG_DST] = y->mem();
        execute(ip, args);
        return y;
    });
}

TensorPtr linear_backward_data(const py::object& gy_obj, const py::object& w_obj) {
    constexpr const char* fn = "linear_backward_data";
    TensorPtr gy = as_tensor_any(fn, "gy", gy_obj);
    TensorPtr W = as_tensor_any(fn, "W", w_obj);
    check_2d(fn, "gy", gy);
    check_2d(fn, "W", W);
    const std::int64_t n = gy->shape()[0], out = W->shape()[0], in = W->shape()[1];
    if (gy->shape()[1] != out) {
        throw py::value_error(std::string(fn) + ": expected gy.shape[1] == W.shape[0], got gy " +
                              shape_str(gy->shape()) + " and W " + shape_str(W->shape()));
    }
    return guard_dnnl(fn, [&] { return "gy " + shape_str(gy->shape()) + " and W " +
                                       shape_str(W->shape()); }, [&] {
        const dims xd = {n, in}, wd = {out, in}, yd = {n, out};
        // Plain weights are used as they are: gemm:jit on plain weights beats
        // brgemm_bwd_d on its blocked layout plus a reorder of W (measured for
        // every shape of the convnet and RNN benchmarks).
        // (bf16 gy in mixed_bf16: W converted by the reorder, bf16 gx.)
        const memory::data_type dt = compute_dt({&gy});
        const bool plain = dt == memory::data_type::f32 && W->is_plain();
        const memory::desc w_off = plain ? plain_desc(wd) : offered_md(W, wd, dt);
        PrimitiveKey key("inner_product_backward_data");
        key.dtype(dt).shape(xd).shape(wd).text("weights", md_text(w_off));
        dnnl::primitive ip = PrimitiveCache::global().get_or_create(key, [&] {
            const ip_fwd::primitive_desc hint =
                fwd_pd(any_md(xd, dt), any_md(wd, dt), 0, any_md(yd, dt), false);
            if (plain) {
                ip_bwd_data::primitive_desc kept(cpu_engine(), any_md(xd), w_off, any_md(yd), hint,
                                                 op_attr(), true);
                if (kept) return dnnl::primitive(ip_bwd_data(kept));
            }
            ip_bwd_data::primitive_desc any(cpu_engine(), any_md(xd, dt), any_md(wd, dt),
                                            any_md(yd, dt), hint, op_attr());
            std::vector<memory::desc> tries;
            if (!is_any(w_off) && !plain) tries.push_back(w_off);
            return dnnl::primitive(ip_bwd_data(offered_or_any(
                any, tries, [&](const memory::desc& w) {
                    return ip_bwd_data::primitive_desc(cpu_engine(), any_md(xd, dt), w,
                                                       any_md(yd, dt), hint, op_attr(), true);
                })));
        });
        std::vector<TensorPtr> keep;
        std::unordered_map<int, memory> args;
        args[DNNL_ARG_DIFF_DST] = arg_memory(gy, query_md(ip, query::diff_dst_md), keep);
        args[DNNL_ARG_WEIGHTS] = weight_memory(W, query_md(ip, query::weights_md), keep);
        TensorPtr gx = Tensor::empty(query_md(ip, query::diff_src_md), {n, in});
        args[DNNL_ARG_DIFF_SRC] = gx->mem();
        execute(ip, args);
        return gx;
    });
}

// gW += gy^T x into a plain accumulator, on sgemm (the inner product has no
// accumulating form): the weight of a layer called at every step of an
// unrolled RNN gets its gradient summed where it is computed. The stepwise
// PTB model's softmax layer (20 x 650 -> 10000): 1.2 ms per step against
// 2.5 ms for the primitive plus 2.6 ms for the separate add of 26 MB.
// gW = gy^T x written (beta 0) or added (beta 1) into dst, a plain float32
// (out, in) tensor, on one GEMM: sgemm, or with bf16 x or gy (mixed_bf16)
// gemm_bf16 (both read as bf16, float32 accumulation). gb (new) with_bias.
py::tuple linear_backward_weights_into(const char* fn, const TensorPtr& x, const TensorPtr& gy,
                                       bool with_bias, const TensorPtr& dst, float beta) {
    const std::int64_t n = x->shape()[0], in = x->shape()[1], out = gy->shape()[1];
    return guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()) + " and gy " +
                                       shape_str(gy->shape()); }, [&] {
        const memory::data_type dt = compute_dt({&x, &gy});
        TensorPtr xp = in_layout(x, plain_desc({n, in}, dt));
        TensorPtr gyp = in_layout(gy, plain_desc({n, out}, dt));
        float* d = static_cast<float*>(dst->data());
        TensorPtr gb = with_bias ? Tensor::empty(plain_desc({out})) : nullptr;
        {
            py::gil_scoped_release release;
            if (dt == memory::data_type::bf16) {
                gemm_bf16('T', 'N', out, in, n, static_cast<const bf16_t*>(gyp->data()), out,
                          static_cast<const bf16_t*>(xp->data()), in, beta, d, in);
            } else {
                sgemm('T', 'N', out, in, n, static_cast<const float*>(gyp->data()), out,
                      static_cast<const float*>(xp->data()), in, beta, d, in);
            }
            if (gb) {
                float* b = static_cast<float*>(gb->data());
                std::fill(b, b + out, 0.0f);
                auto add_rows = [&](const auto* g, auto value) {
                    for (std::int64_t r = 0; r < n; ++r) {
                        for (std::int64_t j = 0; j < out; ++j) b[j] += value(g[r * out + j]);
                    }
                };
                if (dt == memory::data_type::bf16) {
                    add_rows(static_cast<const bf16_t*>(gyp->data()), from_bf16);
                } else {
                    add_rows(static_cast<const float*>(gyp->data()), [](float v) { return v; });
                }
            }
        }
        return py::make_tuple(dst, gb ? py::cast(gb) : py::none());
    });
}

py::tuple linear_backward_weights(const py::object& x_obj, const py::object& gy_obj,
                                  bool with_bias, const py::object& w_like_obj,
                                  const py::object& acc_obj) {
    constexpr const char* fn = "linear_backward_weights";
    TensorPtr x = as_tensor_any(fn, "x", x_obj);
    TensorPtr gy = as_tensor_any(fn, "gy", gy_obj);
    check_2d(fn, "x", x);
    check_2d(fn, "gy", gy);
    const std::int64_t n = x->shape()[0], in = x->shape()[1], out = gy->shape()[1];
    if (gy->shape()[0] != n) {
        throw py::value_error(std::string(fn) + ": expected x and gy with the same batch size, "
                              "got x " + shape_str(x->shape()) + " and gy " +
                              shape_str(gy->shape()));
    }
    TensorPtr w_like = is_tensor(w_like_obj) ? w_like_obj.cast<TensorPtr>() : nullptr;
    if (w_like && w_like->shape() != Shape{out, in}) w_like = nullptr;
    if (TensorPtr acc = accumulator_arg(fn, "acc", acc_obj, {out, in})) {
        if (w_like && !w_like->is_plain()) {
            throw py::value_error(std::string(fn) + ": an accumulator needs a plain weight "
                                  "(the gradient comes in the weight's layout)");
        }
        return linear_backward_weights_into(fn, x, gy, with_bias, acc, 1.0f);
    }
    if (compute_dt({&x, &gy}) == memory::data_type::bf16 && (!w_like || w_like->is_plain()) &&
        x->is_plain() && gy->is_plain()) {
        // mixed_bf16, plain operands and weight: the GEMM writes the plain
        // gradient, and the weight stays plain (no adoption below), so a
        // weight used at every step of an unrolled RNN (PTB's decoder) has
        // its gradients added in place by the same GEMM (acc above). The
        // inner product's brgemm backward-weights kernel instead (with the
        // weight adopting its blocked layout) was ~8 ms faster a step on
        // AlexNet but held more memory (VGG-A peak 2490 MB against 2099,
        // float32 2323; AlexNet 945 against 802).
        return linear_backward_weights_into(
            fn, x, gy, with_bias, Tensor::empty(plain_desc({out, in}), {out, in}), 0.0f);
    }
    return guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()) + " and gy " +
                                       shape_str(gy->shape()); }, [&] {
        const dims xd = {n, in}, wd = {out, in}, yd = {n, out};
        // The gradient comes in the weight's layout; a plain result (a plain
        // weight, or none given) is computed plain rather than reordered.
        // bf16 x and gy (mixed_bf16): float32 gW and gb all the same, from
        // the kernel oneDNN prefers (AMX brgemm); for bf16 the plain-gradient
        // policy does not hold: its gemm:jit ran fc6 of AlexNet (batch 16)
        // in 41 ms, brgemm plus the reorder to the weight's layout in ~10.
        const memory::data_type dt = compute_dt({&x, &gy});
        const bool plain = dt == memory::data_type::f32 && (!w_like || w_like->is_plain());
        const memory::desc gw_off = plain ? plain_desc(wd) : offered_md(w_like, wd);
        const memory::desc b_md = plain_desc({out});
        PrimitiveKey key("inner_product_backward_weights");
        key.dtype(dt).shape(xd).shape(wd).option("bias", with_bias)
            .text("diff_weights", md_text(gw_off));
        dnnl::primitive ip = PrimitiveCache::global().get_or_create(key, [&] {
            const ip_fwd::primitive_desc hint =
                fwd_pd(any_md(xd, dt), any_md(wd, dt), with_bias ? out : 0, any_md(yd, dt), false);
            auto make_pd = [&](const memory::desc& w, bool allow_empty) {
                if (with_bias) {
                    return ip_bwd_weights::primitive_desc(cpu_engine(), any_md(xd, dt), w, b_md,
                                                          any_md(yd, dt), hint,
                                                          op_attr(), allow_empty);
                }
                return ip_bwd_weights::primitive_desc(cpu_engine(), any_md(xd, dt), w,
                                                      any_md(yd, dt), hint, op_attr(),
                                                      allow_empty);
            };
            if (plain) {
                ip_bwd_weights::primitive_desc kept = make_pd(gw_off, true);
                if (kept) return dnnl::primitive(ip_bwd_weights(kept));
            }
            ip_bwd_weights::primitive_desc any = make_pd(any_md(wd), false);
            std::vector<memory::desc> tries;
            if (!is_any(gw_off) && !plain) tries.push_back(gw_off);
            return dnnl::primitive(ip_bwd_weights(offered_or_any(
                any, tries, [&](const memory::desc& w) { return make_pd(w, true); })));
        });
        std::vector<TensorPtr> keep;
        std::unordered_map<int, memory> args;
        args[DNNL_ARG_SRC] = arg_memory(x, query_md(ip, query::src_md), keep);
        args[DNNL_ARG_DIFF_DST] = arg_memory(gy, query_md(ip, query::diff_dst_md), keep);
        TensorPtr gW = Tensor::empty(query_md(ip, query::diff_weights_md), {out, in});
        args[DNNL_ARG_DIFF_WEIGHTS] = gW->mem();
        TensorPtr gb;
        if (with_bias) {
            gb = Tensor::empty(b_md);
            args[DNNL_ARG_DIFF_BIAS] = gb->mem();
        }
        execute(ip, args);
        // mixed_bf16: the forward reads the float32 master through a bf16
        // conversion anyway, so a plain master adopts, once, the layout its
        // gradient comes in instead of every gradient being reordered to it
        // (ResNet-50: 52 reorders, 17 ms a step; AlexNet's fc: 35 ms).
        if (w_like && dt == memory::data_type::bf16 && may_adopt(w_like, gW->desc()))
            w_like->reorder_inplace(gW->desc());
        if (w_like && !gW->same_layout(*w_like)) gW = gW->reordered(w_like->desc());
        return py::make_tuple(gW, gb ? py::cast(gb) : py::none());
    });
}

// C = op(a) op(b) for C-contiguous float32 2-D NumPy arrays a and b (op:
// the array or its transpose), a new NumPy array, on sgemm: the matrix
// products of a Linear layer's route on NumPy arrays ('always' takes it,
// 'auto' not: cpuframe/functions/connection/linear.py) on oneDNN's OpenMP
// team, without the inner product's reorder of a plain weight into its
// blocked layout on every call.
py::array gemm_arrays(const py::object& a_obj, const py::object& b_obj, bool trans_a,
                      bool trans_b, const std::string& name) {
    const char* fn = name.c_str();
    auto check = [&](const char* arg, const py::object& obj) {
        if (!py::isinstance<py::array_t<float>>(obj)) {
            std::string got = py::str(py::type::of(obj).attr("__name__"));
            if (py::isinstance<py::array>(obj)) {
                got = std::string(py::str(obj.attr("dtype"))) + " " + got;
            }
            throw py::type_error(name + ": expected " + arg + " as a float32 NumPy array, got " +
                                 got);
        }
        py::array a = py::reinterpret_borrow<py::array>(obj);
        if (a.ndim() != 2) {
            throw py::value_error(name + ": expected " + arg + " with 2 dimensions, got " +
                                  std::to_string(a.ndim()));
        }
        if (!(a.flags() & py::array::c_style)) {
            throw py::value_error(name + ": expected " + arg +
                                  " C-contiguous (or passed transposed), got strides (" +
                                  std::to_string(a.strides(0)) + ", " +
                                  std::to_string(a.strides(1)) + ")");
        }
        return a;
    };
    py::array a = check("a", a_obj), b = check("b", b_obj);
    const std::int64_t m = trans_a ? a.shape(1) : a.shape(0);
    const std::int64_t k = trans_a ? a.shape(0) : a.shape(1);
    const std::int64_t kb = trans_b ? b.shape(1) : b.shape(0);
    const std::int64_t n = trans_b ? b.shape(0) : b.shape(1);
    auto what = [&] {
        return "op(a) (" + std::to_string(m) + ", " + std::to_string(k) + ") and op(b) (" +
               std::to_string(kb) + ", " + std::to_string(n) + ")";
    };
    if (k != kb) throw py::value_error(name + ": the inner sizes differ: " + what());
    return guard_dnnl(fn, what, [&] {
        py::array_t<float> c;
        try {
            c = py::array_t<float>(std::vector<py::ssize_t>{m, n});
        } catch (py::error_already_set& e) {
            if (!e.matches(PyExc_MemoryError)) throw;
            throw OutOfMemory("could not allocate " +
                              bytes_str(static_cast<std::size_t>(m) * n * sizeof(float)) +
                              " for an array of shape " + shape_str({m, n}));
        }
        float* pc = c.mutable_data();
        const float* pa = static_cast<const float*>(a.data());
        const float* pb = static_cast<const float*>(b.data());
        {
            py::gil_scoped_release release;
            if (k == 0) {
                std::fill(pc, pc + m * n, 0.0f);
            } else {
                sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, pa, a.shape(1), pb,
                      b.shape(1), 0.0f, pc, n);
            }
        }
        return py::array(c);
    });
}

}  // namespace

void register_inner_product(py::module_& m) {
    m.def("gemm_arrays", &gemm_arrays, py::arg("a"), py::arg("b"), py::arg("trans_a") = false,
          py::arg("trans_b") = false, py::arg("name") = "gemm_arrays",
          R"doc(op(a) op(b) for C-contiguous float32 2-D NumPy arrays (op: transposed
where trans_a / trans_b), a new float32 NumPy array, on oneDNN's sgemm. Errors
name ``name`` (the op asking).
)doc");
    m.def("linear_forward", &linear_forward, py::arg("x"), py::arg("W"), py::arg("b"),
          R"doc(y = x W^T (+ b) for x (N, I), W (O, I), b (O,) or None, as a Tensor.

A plain W Tensor adopts the layout the primitive wants, in place, once.
)doc");
    m.def("linear_backward_data", &linear_backward_data, py::arg("gy"), py::arg("W"),
          "gx = gy W for gy (N, O) and W (O, I), as a Tensor.");
    m.def("linear_backward_weights", &linear_backward_weights, py::arg("x"), py::arg("gy"),
          py::arg("with_bias") = false, py::arg("w_like") = py::none(),
          py::arg("acc") = py::none(),
          R"doc(gW = gy^T x (and gb = sum of gy over the batch): a tuple (gW, gb or None).

gW comes in the layout of the Tensor w_like when one is given. With acc (a plain
Tensor or writeable float32 array of W's shape; w_like, if given, plain too) the
gradient is added into acc in place and acc is returned as gW.
)doc");
}

}  // namespace cpuframe
