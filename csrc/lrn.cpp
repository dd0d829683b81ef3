// Local response normalization across channels on oneDNN, with Chainer's
// parameters:
//
//     y_c = x_c / (k + alpha * sum_{|j - c| <= n // 2} x_j ** 2) ** beta
//
// The window is n // 2 channels on each side (an even n sums n + 1 channels,
// as Chainer's CPU code does), so oneDNN's local_size is 2 * (n // 2) + 1;
// oneDNN divides alpha by local_size, so it is given alpha * local_size.
// x is taken in its own layout; y and gx come in the same layout. Where oneDNN
// has only its reference backward for the layout (on AVX2, every layout in
// oneDNN 3.2: 360 ms for GoogLeNet's second LRN), the gradient comes from our
// own kernel (lrn_backward_kernel).
//
// mixed_bf16: a bf16 x gives bf16 y and gx (oneDNN's bf16 LRN: float32
// inside); where only the reference backward exists for bf16, our kernel runs
// on float32 copies and gx is converted back.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>

#if defined(CPUFRAME_HAVE_OPENMP)
#include <omp.h>
#endif

#include "array_utils.hpp"
#include "dense_layout.hpp"
#include "engine.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "simd/kernels.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using dnnl::algorithm;
using dnnl::prop_kind;
using dnnl::query;
using fwd = dnnl::lrn_forward;
using bwd = dnnl::lrn_backward;

struct LrnContext {
    memory::desc src_md;
    Shape x_shape;
    memory::dim local_size = 1;
    float alpha = 0.0f, beta = 0.0f, k = 0.0f;  // oneDNN's alpha
    bool training = false;
    TensorPtr workspace;  // training only (when the implementation uses one)
};
using LrnContextPtr = std::shared_ptr<LrnContext>;

void add_params(PrimitiveKey& key, const LrnContext& c) {
    key.option("local_size", c.local_size)
        .scalar("alpha", c.alpha)
        .scalar("beta", c.beta)
        .scalar("k", c.k);
}

fwd::primitive_desc forward_pd(const LrnContext& c, prop_kind kind) {
    return fwd::primitive_desc(cpu_engine(), kind, algorithm::lrn_across_channels, c.src_md,
                               c.src_md, c.local_size, c.alpha, c.beta, c.k, op_attr());
}

bool is_channels_last(const memory::desc& md) {
    return md.get_inner_nblks() == 0 && !(md == plain_desc(md.get_dims(), md.get_data_type()));
}

bool reference_impl(const char* impl) { return std::string(impl).rfind("ref", 0) == 0; }

// The first layout of the given one, plain, channels-last and blocked by 16 / 8 channels
// whose LRN backward is not oneDNN's (slow) reference implementation.
memory::desc training_layout(const LrnContext& c, const memory::desc& given) {
    const memory::dims d = given.get_dims();
    const int nd = given.get_ndims();
    const memory::data_type dt = given.get_data_type();
    const memory::desc plain = plain_desc(d, dt);
    using tag = memory::format_tag;
    const tag last[] = {tag::acb, tag::acdb, tag::acdeb};
    const tag b16[] = {tag::aBc16b, tag::aBcd16b, tag::aBcde16b};
    const tag b8[] = {tag::aBc8b, tag::aBcd8b, tag::aBcde8b};
    std::vector<memory::desc> candidates{given};
    if (!(given == plain)) candidates.push_back(plain);
    if (c.local_size > 1) candidates.emplace_back(d, dt, last[nd - 3]);
    candidates.emplace_back(d, dt, b16[nd - 3]);
    candidates.emplace_back(d, dt, b8[nd - 3]);
    for (const memory::desc& md : candidates) {
        const fwd::primitive_desc hint = fwd::primitive_desc(
            cpu_engine(), prop_kind::forward_training, algorithm::lrn_across_channels, md, md,
            c.local_size, c.alpha, c.beta, c.k, op_attr(), true);
        if (!hint) continue;
        const bwd::primitive_desc back(cpu_engine(), algorithm::lrn_across_channels, md, md, md,
                                       c.local_size, c.alpha, c.beta, c.k, hint,
                                       op_attr(), true);
        if (back && !reference_impl(back.impl_info_str())) return md;
    }
    return given;
}

py::tuple lrn_forward(const py::object& x_obj, std::int64_t n, float k, float alpha, float beta,
                      bool training) {
    constexpr const char* fn = "lrn_forward";
    TensorPtr x = as_tensor_any(fn, "x", x_obj);  // f32, or bf16 in and out (mixed_bf16)
    if (x->ndim() < 2 || x->ndim() > 5 || x->size() == 0) {
        throw py::value_error(std::string(fn) +
                              ": expected a non-empty x of shape (N, C) or (N, C, spatial...) "
                              "with at most 3 spatial axes, got " + shape_str(x->shape()));
    }
    if (n < 1) {
        throw py::value_error(std::string(fn) + ": expected n >= 1, got " + std::to_string(n));
    }
    return guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()) + " " + x->format(); }, [&] {
        x = dense_tensor(x);
        auto ctx = std::make_shared<LrnContext>();
        ctx->x_shape = x->shape();
        ctx->local_size = 2 * (n / 2) + 1;
        ctx->alpha = alpha * static_cast<float>(ctx->local_size);
        ctx->beta = beta;
        ctx->k = k;
        ctx->training = training;
        const memory::desc plain = plain_desc(x->desc().get_dims(), x->dtype());
        ctx->src_md = x->desc();
        if (ctx->local_size == 1 && is_channels_last(ctx->src_md)) {
            // oneDNN 3.2's lrn_jit backward crashes on NHWC with a window of
            // one channel: that case runs in plain layout.
            ctx->src_md = plain;
        }
        if (training && x->ndim() >= 3) {
            // Some layouts have only a reference backward (plain NCHW always;
            // on AVX2 the 8-channel blocked one too, 240 ms for GoogLeNet's
            // second LRN against ~10 in NHWC): train in the first layout with
            // a fast one (chosen once per layout and shape, kept in the cache).
            PrimitiveKey probe("lrn_forward_training_layout");
            probe.text("src", desc_key(plain));
            add_params(probe, *ctx);
            dnnl::primitive p = PrimitiveCache::global().get_or_create(probe, [&] {
                ctx->src_md = training_layout(*ctx, ctx->src_md);
                return dnnl::primitive(fwd(forward_pd(*ctx, prop_kind::forward_training)));
            });
            ctx->src_md = query_md(p, query::src_md);
        }
        x = in_layout(x, ctx->src_md);
        const prop_kind kind = training ? prop_kind::forward_training : prop_kind::forward_inference;
        PrimitiveKey key("lrn_forward");
        key.prop(kind).text("src", desc_key(ctx->src_md));
        add_params(key, *ctx);
        dnnl::primitive prim = PrimitiveCache::global().get_or_create(
            key, [&] { return dnnl::primitive(fwd(forward_pd(*ctx, kind))); });
        TensorPtr y = Tensor::empty(ctx->src_md, ctx->x_shape);
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, x->mem()}, {DNNL_ARG_DST, y->mem()}};
        const memory::desc ws_md = query_md(prim, query::workspace_md);
        if (training && ws_md.get_size() > 0) {
            ctx->workspace = Tensor::empty(ws_md);
            args[DNNL_ARG_WORKSPACE] = ctx->workspace->mem();
        }
        execute(prim, args);
        return py::make_tuple(y, ctx);
    });
}

// 1 for a plain md, 8 or 16 for one blocked by that many channels (nCw8c,
// nChw16c, ...), 0 for any other layout.
std::int64_t channel_block(const memory::desc& md) {
    const memory::dims d = md.get_dims();
    if (md == plain_desc(d)) return 1;
    if (d.size() < 3 || d.size() > 5) return 0;
    using tag = memory::format_tag;
    const std::size_t i = d.size() - 3;
    const tag b8[] = {tag::aBc8b, tag::aBcd8b, tag::aBcde8b};
    const tag b16[] = {tag::aBc16b, tag::aBcd16b, tag::aBcde16b};
    if (md == memory::desc(d, memory::data_type::f32, b8[i])) return 8;
    if (md == memory::desc(d, memory::data_type::f32, b16[i])) return 16;
    return 0;
}

bool reference_primitive(const dnnl::primitive& p) {
    const char* impl = nullptr;
    if (dnnl_primitive_desc_query(p.get_primitive_desc(), dnnl_query_impl_info_str, 0, &impl) !=
            dnnl_success ||
        impl == nullptr) {
        return false;
    }
    return reference_impl(impl);
}

// The gradient of LRN across channels for x, gy (N, C, S), S the product of
// the spatial axes, plain (blk 1) or blocked by blk channels (nChw8c,
// nChw16c: channel c of position s at (c / blk) S blk + s blk + c % blk of
// its sample, C padded to a multiple of blk; gx's padding is written 0).
// The gradient (see SimdKernels::lrn_backward_block for the formula, with
// Chainer's alpha, not oneDNN's) in x's layout: plain (blk = 1) or blocked by
// blk channels. Each (sample, block of kBlock positions) is independent: the
// threads take blocks, gather x and gy channel-major into buffers of their
// own, run the vector kernel and scatter gx (zeros in the padded channels).
void lrn_backward_kernel(const float* x, const float* gy, float* gx, std::int64_t N,
                         std::int64_t C, std::int64_t S, std::int64_t blk, std::int64_t half,
                         float alpha, float beta, float k) {
    constexpr std::int64_t kBlock = 64;
    const std::int64_t Cp = (C + blk - 1) / blk * blk;
    auto at = [&](std::int64_t c, std::int64_t s) { return (c / blk) * S * blk + s * blk + c % blk; };
    const std::int64_t blocks_per_sample = (S + kBlock - 1) / kBlock;
    const std::int64_t tasks = N * blocks_per_sample;
    const SimdKernels& kernels = simd_kernels();
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp parallel if (tasks > 1 && N * C * S >= (std::int64_t{1} << 15))
#endif
    {
        // x, gy, gx and the kernel's 3 work rows per channel
        std::vector<float> buf(static_cast<std::size_t>(6 * C * kBlock));
        float* xb = buf.data();
        float* gb = xb + C * kBlock;
        float* ob = gb + C * kBlock;
        float* work = ob + C * kBlock;
#if defined(CPUFRAME_HAVE_OPENMP)
#pragma omp for schedule(static)
#endif
        for (std::int64_t task = 0; task < tasks; ++task) {
            const std::int64_t n = task / blocks_per_sample;
            const std::int64_t s0 = (task % blocks_per_sample) * kBlock;
            const std::int64_t B = std::min(kBlock, S - s0);
            const float* xn = x + n * Cp * S;
            const float* gn = gy + n * Cp * S;
            float* on = gx + n * Cp * S;
            for (std::int64_t c = 0; c < C; ++c) {
                const std::int64_t base = at(c, s0);
                for (std::int64_t b = 0; b < B; ++b) {
                    xb[c * kBlock + b] = xn[base + b * blk];
                    gb[c * kBlock + b] = gn[base + b * blk];
                }
            }
            kernels.lrn_backward_block(xb, gb, ob, work, C, B, kBlock, half, alpha, beta, k);
            for (std::int64_t c = 0; c < C; ++c) {
                const std::int64_t base = at(c, s0);
                for (std::int64_t b = 0; b < B; ++b) on[base + b * blk] = ob[c * kBlock + b];
            }
            for (std::int64_t c = C; c < Cp; ++c) {
                for (std::int64_t b = 0; b < B; ++b) on[at(c, s0 + b)] = 0.0f;
            }
        }
    }
}

TensorPtr lrn_backward(const py::object& x_obj, const py::object& gy_obj,
                       const LrnContextPtr& ctx) {
    constexpr const char* fn = "lrn_backward";
    // in the forward's data type (ctx->src_md): bf16 in mixed_bf16
    TensorPtr x = as_tensor_any(fn, "x", x_obj);
    TensorPtr gy = as_tensor_any(fn, "gy", gy_obj);
    if (x->shape() != ctx->x_shape || gy->shape() != ctx->x_shape) {
        throw py::value_error(std::string(fn) + ": expected x and gy of the forward's shape " +
                              shape_str(ctx->x_shape) + ", got x " + shape_str(x->shape()) +
                              " and gy " + shape_str(gy->shape()));
    }
    if (!ctx->training) {
        throw py::value_error(std::string(fn) +
                              ": this LRN ran with training=False; its backward needs the "
                              "training forward");
    }
    return guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()) + " " + x->format(); }, [&] {
        const memory::desc& md = ctx->src_md;
        PrimitiveKey key("lrn_backward");
        key.text("src", desc_key(md));
        add_params(key, *ctx);
        dnnl::primitive prim = PrimitiveCache::global().get_or_create(key, [&] {
            const fwd::primitive_desc hint = forward_pd(*ctx, prop_kind::forward_training);
            return dnnl::primitive(bwd(bwd::primitive_desc(
                cpu_engine(), algorithm::lrn_across_channels, md, md, md, ctx->local_size,
                ctx->alpha, ctx->beta, ctx->k, hint, op_attr())));
        });
        if (reference_primitive(prim)) {
            // Ours instead, in md when it is plain or channel-blocked (else
            // plain float32, and gx reordered back to md: bf16 too).
            const std::int64_t blk = channel_block(md);
            const memory::desc work = blk > 0 ? md : plain_desc(to_dims(ctx->x_shape));
            TensorPtr xw = in_layout(dense_tensor(x), work);
            TensorPtr gw = in_layout(dense_tensor(gy), work);
            TensorPtr gx = Tensor::empty(work, ctx->x_shape);
            std::int64_t S = 1;
            for (std::size_t i = 2; i < ctx->x_shape.size(); ++i) S *= ctx->x_shape[i];
            {
                py::gil_scoped_release release;
                lrn_backward_kernel(static_cast<const float*>(xw->data()),
                                    static_cast<const float*>(gw->data()),
                                    static_cast<float*>(gx->data()), ctx->x_shape[0],
                                    ctx->x_shape[1], S, blk > 0 ? blk : 1, ctx->local_size / 2,
                                    ctx->alpha / static_cast<float>(ctx->local_size), ctx->beta,
                                    ctx->k);
            }
            return blk > 0 ? gx : gx->reordered(md);
        }
        std::vector<TensorPtr> keep;
        std::unordered_map<int, memory> args;
        args[DNNL_ARG_SRC] = arg_memory(x, md, keep);
        args[DNNL_ARG_DIFF_DST] = arg_memory(gy, md, keep);
        TensorPtr gx = Tensor::empty(md, ctx->x_shape);
        args[DNNL_ARG_DIFF_SRC] = gx->mem();
        const memory::desc ws_md = query_md(prim, query::workspace_md);
        if (ws_md.get_size() > 0 && ctx->workspace) {
            args[DNNL_ARG_WORKSPACE] = arg_memory(ctx->workspace, ws_md, keep);
        }
        execute(prim, args);
        return gx;
    });
}

}  // namespace

void register_lrn(py::module_& m) {
    py::class_<LrnContext, LrnContextPtr>(
        m, "LrnContext",
        "What lrn_backward needs from an lrn_forward call (layout, parameters "
        "and, in training, oneDNN's workspace).")
        .def_property_readonly("local_size", [](const LrnContext& c) { return c.local_size; })
        .def_property_readonly("training", [](const LrnContext& c) { return c.training; });
    m.def("lrn_forward", &lrn_forward, py::arg("x"), py::arg("n"), py::arg("k"),
          py::arg("alpha"), py::arg("beta"), py::arg("training") = true,
          R"doc(Local response normalization across channels (axis 1), Chainer's way.

y_c = x_c / (k + alpha * sum_{|j - c| <= n // 2} x_j ** 2) ** beta, the window
clipped at the ends. x: (N, C, spatial...) with 0 to 3 spatial axes, in any
layout; y comes in x's layout. Returns (y, context).
)doc");
    m.def("lrn_backward", &lrn_backward, py::arg("x"), py::arg("gy"), py::arg("context"),
          R"doc(Gradient of an lrn_forward call (made with training=True) w.r.t. x.
)doc");
}

}  // namespace cpuframe
