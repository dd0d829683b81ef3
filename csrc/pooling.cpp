// Max and average pooling (1-D, 2-D, 3-D) on oneDNN: forward, and backward
// with the forward's context (the max positions live in oneDNN's workspace).
//
// The input is taken in its own layout (plain NCHW, NHWC or blocked, as the
// previous primitive wrote it) and the output comes in the layout oneDNN
// picks for it, normally the same. Chainer's cover_all output size is
// expressed by the caller as a larger right padding (pad_r).
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "array_utils.hpp"
#include "dense_layout.hpp"
#include "engine.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using dnnl::algorithm;
using dnnl::prop_kind;
using dnnl::query;
using dims = memory::dims;
using fwd = dnnl::pooling_forward;
using bwd = dnnl::pooling_backward;

// Everything the backward pass needs from a forward call.
struct PoolingContext {
    algorithm alg = algorithm::pooling_max;
    dims kernel, stride, pad_l, pad_r;
    memory::desc src_md, dst_md;
    Shape x_shape, y_shape;
    TensorPtr workspace;  // max pooling in training mode only
};
using PoolingContextPtr = std::shared_ptr<PoolingContext>;

algorithm parse_algorithm(const char* fn, const std::string& name) {
    if (name == "max") return algorithm::pooling_max;
    if (name == "avg_include_padding") return algorithm::pooling_avg_include_padding;
    if (name == "avg_exclude_padding") return algorithm::pooling_avg_exclude_padding;
    throw py::value_error(std::string(fn) +
                          ": expected mode 'max', 'avg_include_padding' or "
                          "'avg_exclude_padding', got '" + name + "'");
}

const char* algorithm_name(algorithm alg) {
    switch (alg) {
        case algorithm::pooling_max: return "max";
        case algorithm::pooling_avg_include_padding: return "avg_include_padding";
        default: return "avg_exclude_padding";
    }
}

void add_params(PrimitiveKey& key, const PoolingContext& c) {
    key.text("alg", algorithm_name(c.alg))
        .text("kernel", join_dims(c.kernel))
        .text("stride", join_dims(c.stride))
        .text("pad_l", join_dims(c.pad_l))
        .text("pad_r", join_dims(c.pad_r));
}

fwd::primitive_desc forward_pd(const PoolingContext& c, prop_kind kind,
                               const memory::desc& src, const memory::desc& dst) {
    const dims dilation(c.kernel.size(), 0);
    return fwd::primitive_desc(cpu_engine(), kind, c.alg, src, dst, c.stride, c.kernel,
                               dilation, c.pad_l, c.pad_r, op_attr());
}

// The layout to pool x in. oneDNN 3.2 pools plain NCHW (NCDHW) with a slow
// reference kernel (simple_nchw) where a blocked layout has a JIT one: on
// AVX2, AlexNet's first pooling (after a gemm convolution, which writes
// NCHW) took 16 ms where a reorder plus the JIT kernel take about 3. Such an
// input is pooled in the first blocked layout (16, then 8 channels) that
// gets a JIT kernel; the decision is remembered per shape and options.
memory::desc pooling_src(const PoolingContext& c, prop_kind kind, const TensorPtr& x) {
    const memory::desc plain = x->desc();
    const dims xd = to_dims(x->shape());
    if (!x->is_plain() || (xd.size() != 4 && xd.size() != 5) || xd[1] < 8) return plain;
    static std::mutex mu;
    static std::unordered_map<std::string, memory::desc> known;
    PrimitiveKey key("pooling_src_layout");
    key.prop(kind).text("src", desc_key(plain));
    add_params(key, c);
    {
        std::lock_guard<std::mutex> lock(mu);
        auto it = known.find(key.str());
        if (it != known.end()) return it->second;
    }
    auto jit = [&](const memory::desc& src) {
        const dims dilation(c.kernel.size(), 0);
        fwd::primitive_desc pd(cpu_engine(), kind, c.alg, src,
                               any_f32(to_dims(c.y_shape), src.get_data_type()),
                               c.stride, c.kernel, dilation, c.pad_l, c.pad_r, op_attr(), true);
        return pd && std::strncmp(pd.impl_info_str(), "jit", 3) == 0;
    };
    memory::desc chosen = plain;
    if (!jit(plain)) {
        using tag = memory::format_tag;
        const bool is4 = xd.size() == 4;
        for (tag t : {is4 ? tag::aBcd16b : tag::aBcde16b, is4 ? tag::aBcd8b : tag::aBcde8b}) {
            const memory::desc blocked(xd, plain.get_data_type(), t);
            if (jit(blocked)) {
                chosen = blocked;
                break;
            }
        }
    }
    std::lock_guard<std::mutex> lock(mu);
    known.emplace(key.str(), chosen);
    return chosen;
}

py::tuple pooling_forward(const py::object& x_obj, const std::vector<std::int64_t>& kernel,
                          const std::vector<std::int64_t>& stride,
                          const std::vector<std::int64_t>& pad_l,
                          const std::vector<std::int64_t>& pad_r, const std::string& mode,
                          bool training) {
    constexpr const char* fn = "pooling_forward";
    TensorPtr x = as_tensor_any(fn, "x", x_obj);  // f32, or bf16 in and out (mixed_bf16)
    auto ctx = std::make_shared<PoolingContext>();
    ctx->alg = parse_algorithm(fn, mode);
    const std::size_t nsp = kernel.size();
    if (x->ndim() < 3 || x->ndim() > 5 || static_cast<std::size_t>(x->ndim()) != nsp + 2) {
        throw py::value_error(std::string(fn) + ": expected x of shape (N, C, spatial...) with " +
                              "1 to 3 spatial axes and one kernel length per spatial axis, got x " +
                              shape_str(x->shape()) + " and kernel " + join_dims(kernel));
    }
    if (stride.size() != nsp || pad_l.size() != nsp || pad_r.size() != nsp) {
        throw py::value_error(std::string(fn) + ": expected stride, pad_l and pad_r with " +
                              std::to_string(nsp) + " values each");
    }
    ctx->x_shape = x->shape();
    ctx->y_shape = {x->shape()[0], x->shape()[1]};
    for (std::size_t i = 0; i < nsp; ++i) {
        if (kernel[i] < 1 || stride[i] < 1 || pad_l[i] < 0 || pad_r[i] < 0) {
            throw py::value_error(std::string(fn) +
                                  ": expected kernel >= 1, stride >= 1 and pads >= 0, got "
                                  "kernel " + join_dims(kernel) + ", stride " +
                                  join_dims(stride) + ", pad_l " + join_dims(pad_l) +
                                  ", pad_r " + join_dims(pad_r));
        }
        const std::int64_t span = x->shape()[2 + i] + pad_l[i] + pad_r[i] - kernel[i];
        if (span < 0) {
            throw py::value_error(std::string(fn) + ": the window " + join_dims(kernel) +
                                  " does not fit the padded input " + shape_str(x->shape()));
        }
        ctx->y_shape.push_back(span / stride[i] + 1);
    }
    if (x->size() == 0) {
        throw py::value_error(std::string(fn) + ": expected a non-empty x, got " +
                              shape_str(x->shape()));
    }
    ctx->kernel = kernel;
    ctx->stride = stride;
    ctx->pad_l = pad_l;
    ctx->pad_r = pad_r;

    return guard_dnnl(fn, [&] { return "x " + shape_str(x->shape()) + " " + x->format(); }, [&] {
        x = dense_tensor(x);
        const bool with_ws = training && ctx->alg == algorithm::pooling_max;
        const prop_kind kind = with_ws ? prop_kind::forward_training : prop_kind::forward_inference;
        const memory::desc src = pooling_src(*ctx, kind, x);
        if (!(src == x->desc())) x = x->reordered(src);
        ctx->src_md = x->desc();
        PrimitiveKey key("pooling_forward");
        key.prop(kind).text("src", desc_key(ctx->src_md));
        add_params(key, *ctx);
        dnnl::primitive prim = PrimitiveCache::global().get_or_create(key, [&] {
            return dnnl::primitive(
                fwd(forward_pd(*ctx, kind, ctx->src_md,
                               any_f32(to_dims(ctx->y_shape), ctx->src_md.get_data_type()))));
        });
        ctx->dst_md = query_md(prim, query::dst_md);
        TensorPtr y = Tensor::empty(ctx->dst_md, ctx->y_shape);
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, x->mem()}, {DNNL_ARG_DST, y->mem()}};
        if (with_ws) {
            ctx->workspace = Tensor::empty(query_md(prim, query::workspace_md));
            args[DNNL_ARG_WORKSPACE] = ctx->workspace->mem();
        }
        execute(prim, args);
        return py::make_tuple(y, ctx);
    });
}

TensorPtr pooling_backward(const py::object& gy_obj, const PoolingContextPtr& ctx) {
    constexpr const char* fn = "pooling_backward";
    // In the forward's data type (a bf16 forward takes and gives bf16).
    TensorPtr gy = as_tensor_any(fn, "gy", gy_obj);
    if (gy->shape() != ctx->y_shape) {
        throw py::value_error(std::string(fn) + ": expected gy of the pooled shape " +
                              shape_str(ctx->y_shape) + ", got " + shape_str(gy->shape()));
    }
    if (ctx->alg == algorithm::pooling_max && !ctx->workspace) {
        throw py::value_error(std::string(fn) +
                              ": this max pooling ran without a workspace (training=False); "
                              "its backward needs one");
    }
    return guard_dnnl(fn, [&] { return "gy " + shape_str(gy->shape()); }, [&] {
        PrimitiveKey key("pooling_backward");
        key.text("diff_src", desc_key(ctx->src_md)).text("diff_dst", desc_key(ctx->dst_md));
        add_params(key, *ctx);
        dnnl::primitive prim = PrimitiveCache::global().get_or_create(key, [&] {
            const fwd::primitive_desc hint =
                forward_pd(*ctx, prop_kind::forward_training, ctx->src_md, ctx->dst_md);
            const dims dilation(ctx->kernel.size(), 0);
            return dnnl::primitive(bwd(bwd::primitive_desc(
                cpu_engine(), ctx->alg, ctx->src_md, ctx->dst_md, ctx->stride, ctx->kernel,
                dilation, ctx->pad_l, ctx->pad_r, hint, op_attr())));
        });
        std::vector<TensorPtr> keep;
        std::unordered_map<int, memory> args;
        args[DNNL_ARG_DIFF_DST] = arg_memory(gy, query_md(prim, query::diff_dst_md), keep);
        TensorPtr gx = Tensor::empty(query_md(prim, query::diff_src_md), ctx->x_shape);
        args[DNNL_ARG_DIFF_SRC] = gx->mem();
        if (ctx->alg == algorithm::pooling_max) {
            args[DNNL_ARG_WORKSPACE] =
                arg_memory(ctx->workspace, query_md(prim, query::workspace_md), keep);
        }
        execute(prim, args);
        return gx;
    });
}

}  // namespace

void register_pooling(py::module_& m) {
    py::class_<PoolingContext, PoolingContextPtr>(
        m, "PoolingContext",
        "What pooling_backward needs from a pooling_forward call (layouts, "
        "geometry and, for max pooling in training, oneDNN's workspace).")
        .def_property_readonly("has_workspace",
                               [](const PoolingContext& c) { return c.workspace != nullptr; })
        .def_property_readonly("mode",
                               [](const PoolingContext& c) { return algorithm_name(c.alg); });
    m.def("pooling_forward", &pooling_forward, py::arg("x"), py::arg("kernel"), py::arg("stride"),
          py::arg("pad_l"), py::arg("pad_r"), py::arg("mode") = "max",
          py::arg("training") = true,
          R"doc(Pooling over the spatial axes of x (N, C, s...), 1 to 3 of them.

Returns (y, context). mode: 'max' (padding never wins),
'avg_include_padding' (every window divided by prod(kernel)) or
'avg_exclude_padding' (divided by the input elements it covers). Output
length (s + pad_l + pad_r - k) // stride + 1 per axis: Chainer's cover_all
is a larger pad_r. y is in the layout oneDNN chose for x's layout (usually
the same). With training, max pooling keeps its workspace in the context
for pooling_backward.
)doc");
    m.def("pooling_backward", &pooling_backward, py::arg("gy"), py::arg("context"),
          R"doc(Gradient of a pooling_forward call w.r.t. x, given gy of y's shape.

The result is in the layout x had.
)doc");
}

}  // namespace cpuframe
