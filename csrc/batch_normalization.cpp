// Batch normalization over (N, C, spatial...) on oneDNN: training forward
// with batch statistics, inference forward with given statistics, and the
// backward pass with the gradients of scale (gamma) and shift (beta).
//
// x is taken in its own layout (plain, NHWC or blocked) and y / gx come in
// the same layout. The statistics and gamma / beta are plain (C,) vectors.
#include <memory>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>

#include "array_utils.hpp"
#include "deferred.hpp"
#include "dense_layout.hpp"
#include "engine.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using dnnl::normalization_flags;
using dnnl::prop_kind;
using dnnl::query;
using fwd = dnnl::batch_normalization_forward;
using bwd = dnnl::batch_normalization_backward;

// What the backward pass needs from a training forward call.
struct BatchNormContext {
    memory::desc src_md;
    Shape x_shape;
    float eps = 0.0f;
    TensorPtr mean, var;  // batch statistics (biased variance), plain (C,)
};
using BatchNormContextPtr = std::shared_ptr<BatchNormContext>;

// A bf16 x (mixed_bf16) gives a bf16 y and gx; the statistics, gamma, beta
// and their gradients are float32 whatever x is.
const normalization_flags scale_shift =
    normalization_flags::use_scale | normalization_flags::use_shift;

void check_x(const char* fn, const TensorPtr& x) {
    if (x->ndim() < 2 || x->ndim() > 5 || x->size() == 0) {
        throw py::value_error(std::string(fn) +
                              ": expected a non-empty x of shape (N, C) or (N, C, spatial...) "
                              "with at most 3 spatial axes, got " + shape_str(x->shape()));
    }
}

// A per-channel vector argument as a plain (C,) tensor.
TensorPtr channel_vector(const char* fn, const char* arg, const py::object& obj,
                         std::int64_t channels) {
    TensorPtr t = as_tensor(fn, arg, obj);
    if (t->ndim() != 1 || t->shape()[0] != channels) {
        throw py::value_error(std::string(fn) + ": expected " + arg + " of shape (" +
                              std::to_string(channels) + ",), got " + shape_str(t->shape()));
    }
    return t;
}

memory::desc vector_md(std::int64_t channels) { return plain_desc({channels}); }

fwd::primitive_desc forward_pd(prop_kind kind, const memory::desc& src, float eps,
                               normalization_flags flags) {
    return fwd::primitive_desc(cpu_engine(), kind, src, src, eps, flags, op_attr());
}

std::string what_x(const TensorPtr& x) { return "x " + shape_str(x->shape()) + " " + x->format(); }

py::tuple bn_forward_training(const py::object& x_obj, const py::object& gamma_obj,
                              const py::object& beta_obj, float eps) {
    constexpr const char* fn = "batch_normalization_forward";
    TensorPtr x = as_tensor_any(fn, "x", x_obj);  // f32, or bf16 (mixed_bf16)
    check_x(fn, x);
    const std::int64_t c = x->shape()[1];
    TensorPtr gamma = channel_vector(fn, "gamma", gamma_obj, c);
    TensorPtr beta = channel_vector(fn, "beta", beta_obj, c);
    return guard_dnnl(fn, [&] { return what_x(x); }, [&] {
        x = dense_tensor(x);
        auto ctx = std::make_shared<BatchNormContext>();
        ctx->src_md = x->desc();
        ctx->x_shape = x->shape();
        ctx->eps = eps;
        PrimitiveKey key("batch_normalization_forward");
        key.prop(prop_kind::forward_training).text("src", desc_key(ctx->src_md)).scalar("eps", eps);
        dnnl::primitive prim = PrimitiveCache::global().get_or_create(key, [&] {
            return dnnl::primitive(
                fwd(forward_pd(prop_kind::forward_training, ctx->src_md, eps, scale_shift)));
        });
        const memory::desc vmd = vector_md(c);
        ctx->mean = Tensor::empty(vmd);
        ctx->var = Tensor::empty(vmd);
        TensorPtr y = Tensor::empty(ctx->src_md, ctx->x_shape);
        std::vector<TensorPtr> keep;
        execute(prim, {{DNNL_ARG_SRC, x->mem()},
                       {DNNL_ARG_DST, y->mem()},
                       {DNNL_ARG_SCALE, arg_memory(gamma, vmd, keep)},
                       {DNNL_ARG_SHIFT, arg_memory(beta, vmd, keep)},
                       {DNNL_ARG_MEAN, ctx->mean->mem()},
                       {DNNL_ARG_VARIANCE, ctx->var->mem()}});
        return py::make_tuple(y, ctx->mean, ctx->var, ctx);
    });
}

TensorPtr bn_forward_inference(const py::object& x_obj, const py::object& gamma_obj,
                               const py::object& beta_obj, const py::object& mean_obj,
                               const py::object& var_obj, float eps, bool defer) {
    constexpr const char* fn = "batch_normalization_inference";
    TensorPtr x = as_tensor_any(fn, "x", x_obj);  // f32, or bf16 (mixed_bf16)
    check_x(fn, x);
    const std::int64_t c = x->shape()[1];
    TensorPtr gamma = channel_vector(fn, "gamma", gamma_obj, c);
    TensorPtr beta = channel_vector(fn, "beta", beta_obj, c);
    TensorPtr mean = channel_vector(fn, "mean", mean_obj, c);
    TensorPtr var = channel_vector(fn, "var", var_obj, c);
    return guard_dnnl(fn, [&] { return what_x(x); }, [&] {
        x = dense_tensor(x);
        PrimitiveKey key("batch_normalization_forward");
        key.prop(prop_kind::forward_inference).text("src", desc_key(x->desc())).scalar("eps", eps);
        dnnl::primitive prim = PrimitiveCache::global().get_or_create(key, [&] {
            return dnnl::primitive(fwd(forward_pd(
                prop_kind::forward_inference, x->desc(), eps,
                scale_shift | normalization_flags::use_global_stats)));
        });
        const memory::desc vmd = vector_md(c);
        TensorPtr y = Tensor::empty(x->desc(), x->shape());
        std::vector<TensorPtr> keep{x};
        const std::unordered_map<int, memory> args = {
            {DNNL_ARG_SRC, x->mem()},
            {DNNL_ARG_DST, y->mem()},
            {DNNL_ARG_SCALE, arg_memory(gamma, vmd, keep)},
            {DNNL_ARG_SHIFT, arg_memory(beta, vmd, keep)},
            {DNNL_ARG_MEAN, arg_memory(mean, vmd, keep)},
            {DNNL_ARG_VARIANCE, arg_memory(var, vmd, keep)}};
        if (!defer) {
            execute(prim, args);
            return y;
        }
        // Computed when y is first read; a relu claiming y first becomes
        // the primitive's fused relu (fuse_norm_relu: no workspace needed
        // for inference).
        const memory::desc src = x->desc();
        defer_primitive(y, prim, args, keep, fn, [key, src, eps] {
            PrimitiveKey fused_key = key;
            fused_key.option("fuse_relu", 1);
            // (none: relu then runs as a loop after it)
            return PrimitiveCache::global().get_or_none(fused_key, [&] {
                return dnnl::primitive(fwd(forward_pd(
                    prop_kind::forward_inference, src, eps,
                    scale_shift | normalization_flags::use_global_stats |
                        normalization_flags::fuse_norm_relu)));
            });
        });
        return y;
    });
}

py::tuple bn_backward(const py::object& x_obj, const py::object& gamma_obj,
                      const py::object& gy_obj, const BatchNormContextPtr& ctx,
                      bool overwrite_gy) {
    constexpr const char* fn = "batch_normalization_backward";
    TensorPtr x = as_tensor_any(fn, "x", x_obj);  // f32, or bf16 (mixed_bf16)
    TensorPtr gy = as_tensor_any(fn, "gy", gy_obj);  // converted to the forward's type
    if (x->shape() != ctx->x_shape || gy->shape() != ctx->x_shape) {
        throw py::value_error(std::string(fn) + ": expected x and gy of the forward's shape " +
                              shape_str(ctx->x_shape) + ", got x " + shape_str(x->shape()) +
                              " and gy " + shape_str(gy->shape()));
    }
    const std::int64_t c = x->shape()[1];
    TensorPtr gamma = channel_vector(fn, "gamma", gamma_obj, c);
    return guard_dnnl(fn, [&] { return what_x(x) + ", gy " + gy->format(); }, [&] {
        const memory::desc& md = ctx->src_md;
        PrimitiveKey key("batch_normalization_backward");
        key.prop(prop_kind::backward).text("src", desc_key(md)).scalar("eps", ctx->eps);
        dnnl::primitive prim = PrimitiveCache::global().get_or_create(key, [&] {
            const fwd::primitive_desc hint =
                forward_pd(prop_kind::forward_training, md, ctx->eps, scale_shift);
            return dnnl::primitive(bwd(bwd::primitive_desc(cpu_engine(), prop_kind::backward,
                                                           md, md, md, ctx->eps, scale_shift,
                                                           hint, op_attr())));
        });
        const memory::desc vmd = vector_md(c);
        // oneDNN's batch normalization may write diff_src over diff_dst: do
        // it when the caller gives gy up and gy alone holds its buffer.
        TensorPtr gx = overwrite_gy && gy->desc() == md && gy->owns_buffer_exclusively()
                           ? gy
                           : Tensor::empty(md, ctx->x_shape);
        if (gx == gy) gx->touch();  // written over
        TensorPtr ggamma = Tensor::empty(vmd);
        TensorPtr gbeta = Tensor::empty(vmd);
        std::vector<TensorPtr> keep;
        execute(prim, {{DNNL_ARG_SRC, arg_memory(x, md, keep)},
                       {DNNL_ARG_DIFF_DST, arg_memory(gy, md, keep)},
                       {DNNL_ARG_MEAN, ctx->mean->mem()},
                       {DNNL_ARG_VARIANCE, ctx->var->mem()},
                       {DNNL_ARG_SCALE, arg_memory(gamma, vmd, keep)},
                       {DNNL_ARG_DIFF_SRC, gx->mem()},
                       {DNNL_ARG_DIFF_SCALE, ggamma->mem()},
                       {DNNL_ARG_DIFF_SHIFT, gbeta->mem()}});
        return py::make_tuple(gx, ggamma, gbeta);
    });
}

}  // namespace

void register_batch_normalization(py::module_& m) {
    py::class_<BatchNormContext, BatchNormContextPtr>(
        m, "BatchNormContext",
        "What batch_normalization_backward needs from a training forward call "
        "(x's layout, eps and the batch statistics).");
    m.def("batch_normalization_forward", &bn_forward_training, py::arg("x"), py::arg("gamma"),
          py::arg("beta"), py::arg("eps"),
          R"doc(Batch normalization with the batch's statistics (training).

x: (N, C, spatial...) with 0 to 3 spatial axes, in any layout; gamma, beta:
(C,). y = gamma * (x - mean) / sqrt(var + eps) + beta with mean and the biased
variance var over every axis but 1. Returns (y, mean, var, context); y is in
x's layout, mean and var are plain (C,) tensors.
)doc");
    m.def("batch_normalization_inference", &bn_forward_inference, py::arg("x"),
          py::arg("gamma"), py::arg("beta"), py::arg("mean"), py::arg("var"), py::arg("eps"),
          py::arg("defer") = false,
          R"doc(Batch normalization with given statistics: y in x's layout.

y = gamma * (x - mean) / sqrt(var + eps) + beta; every vector is (C,).
With defer=True, y is computed when first read (fuse_relu may fold relu in
first; see convolution_forward).
)doc");
    m.def("batch_normalization_backward", &bn_backward, py::arg("x"), py::arg("gamma"),
          py::arg("gy"), py::arg("context"), py::arg("overwrite_gy") = false,
          R"doc(Gradients (gx, ggamma, gbeta) of a training batch normalization.

x is the forward's input, gy the gradient of y; gx comes in x's layout,
ggamma and gbeta as plain (C,) tensors.
With overwrite_gy=True the caller gives gy up: gx is written over it when
gy is in the forward's layout and alone holds its buffer.
)doc");
}

}  // namespace cpuframe
