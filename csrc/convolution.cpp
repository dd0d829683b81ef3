// Convolution (1-D, 2-D, 3-D; groups, dilation, asymmetric padding) on oneDNN:
// forward with bias, backward data (also the forward of deconvolution, with
// bias), backward weights with bias.
//
// Layout policy, shared with inner_product.cpp:
// - Primitives are created with format_tag::any, so oneDNN picks its fastest
//   layouts (NHWC / blocked weights for brgconv on AVX-512).
// - An input already in a non-plain layout (an activation a previous primitive
//   wrote, a weight adopted earlier) is offered to oneDNN as it is; it is used
//   when oneDNN runs it with the same implementation as for `any`, otherwise
//   it is reordered for this call.
// - A plain weight Tensor (a parameter just sent to the Intel64 device) adopts
//   the layout the primitive wants: it is reordered in place once, and the
//   primitive is also cached under the adopted layout's key, so the next call
//   hits the cache without any reorder.
// - Weight gradients are produced in the weight's own layout (w_like), so the
//   optimizer updates the pair element-wise without a reorder.
#include <cstring>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "array_utils.hpp"
#include "deferred.hpp"
#include "engine.hpp"
#include "layout_offer.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using dnnl::algorithm;
using dnnl::prop_kind;
using dnnl::query;
using dims = memory::dims;
using fwd = dnnl::convolution_forward;
using bwd_data = dnnl::convolution_backward_data;
using bwd_weights = dnnl::convolution_backward_weights;

// Forward prop kind of the convolution primitives. forward_inference lets
// oneDNN 3.2 dispatch brgconv (NHWC) for f32 on AVX-512; forward_training
// gets jit kernels on nChw16c, the layout the backward kernels use too.
bool g_forward_inference = false;

struct Geometry {
    dims stride, dilate, pad_l, pad_r;  // dilate in oneDNN's convention: d - 1
    std::int64_t groups = 1;
};

std::string join(const dims& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(v[i]);
    }
    return s;
}

Geometry make_geometry(const char* fn, std::size_t nsp, const std::vector<std::int64_t>& stride,
                       const std::vector<std::int64_t>& dilate,
                       const std::vector<std::int64_t>& pad_l,
                       const std::vector<std::int64_t>& pad_r, std::int64_t groups) {
    if (stride.size() != nsp || dilate.size() != nsp || pad_l.size() != nsp ||
        pad_r.size() != nsp) {
        throw py::value_error(std::string(fn) + ": expected stride, dilate, pad_l and pad_r with " +
                              std::to_string(nsp) + " values each (one per spatial axis)");
    }
    Geometry g;
    for (std::size_t i = 0; i < nsp; ++i) {
        if (stride[i] < 1 || dilate[i] < 1 || pad_l[i] < 0 || pad_r[i] + stride[i] <= 0) {
            throw py::value_error(std::string(fn) +
                                  ": expected stride >= 1, dilate >= 1, pad_l >= 0 and "
                                  "pad_r > -stride, got stride " + join(stride) + ", dilate " +
                                  join(dilate) + ", pad_l " + join(pad_l) + ", pad_r " +
                                  join(pad_r));
        }
        g.stride.push_back(stride[i]);
        g.dilate.push_back(dilate[i] - 1);
        g.pad_l.push_back(pad_l[i]);
        g.pad_r.push_back(pad_r[i]);
    }
    if (groups < 1) {
        throw py::value_error(std::string(fn) + ": expected groups >= 1, got " +
                              std::to_string(groups));
    }
    g.groups = groups;
    return g;
}

void add_geometry(PrimitiveKey& key, const Geometry& g) {
    key.text("stride", join(g.stride))
        .text("dilate", join(g.dilate))
        .text("pad_l", join(g.pad_l))
        .text("pad_r", join(g.pad_r))
        .option("groups", g.groups);
}

// oneDNN's weight dims: (G, O/G, I/G, k...) for grouped convolutions.
dims weight_dims(const Shape& w_shape, std::int64_t groups) {
    dims d = to_dims(w_shape);
    if (groups == 1) return d;
    d[0] /= groups;
    d.insert(d.begin(), groups);
    return d;
}

// Checks x (N, C, s...) against W (O, C/G, k...) and returns the output dims.
Shape conv_output_shape(const char* fn, const Shape& x, const Shape& w, const Geometry& g) {
    const std::size_t nsp = g.stride.size();
    if (x.size() != nsp + 2 || w.size() != nsp + 2) {
        throw py::value_error(std::string(fn) + ": expected x and W with " +
                              std::to_string(nsp + 2) + " dimensions, got x " + shape_str(x) +
                              " and W " + shape_str(w));
    }
    if (w[0] % g.groups != 0 || x[1] != w[1] * g.groups) {
        throw py::value_error(std::string(fn) + ": expected x.shape[1] == W.shape[1] * groups "
                              "and W.shape[0] % groups == 0, got x " + shape_str(x) + ", W " +
                              shape_str(w) + ", groups " + std::to_string(g.groups));
    }
    Shape y = {x[0], w[0]};
    for (std::size_t i = 0; i < nsp; ++i) {
        const std::int64_t extent = (w[2 + i] - 1) * (g.dilate[i] + 1) + 1;
        const std::int64_t span = x[2 + i] + g.pad_l[i] + g.pad_r[i] - extent;
        if (span < 0) {
            throw py::value_error(std::string(fn) + ": the filter " + shape_str(w) +
                                  " with dilation does not fit the padded input " +
                                  shape_str(x));
        }
        y.push_back(span / g.stride[i] + 1);
    }
    return y;
}

void check_bias(const char* fn, const TensorPtr& b, std::int64_t channels) {
    if (b && (b->ndim() != 1 || b->shape()[0] != channels)) {
        throw py::value_error(std::string(fn) + ": expected b of shape (" +
                              std::to_string(channels) + ",), got " + shape_str(b->shape()));
    }
}

// The weight descs to try with the offered activation layouts, best first:
// the weight's own layout, then `any` (the activations alone).
std::vector<memory::desc> offers(const memory::desc& w_off, bool acts_offered,
                                 const dims& wd) {
    std::vector<memory::desc> tries;
    if (!is_any(w_off) || acts_offered) tries.push_back(w_off);
    if (!is_any(w_off) && acts_offered) tries.push_back(any_md(wd, w_off.get_data_type()));
    return tries;
}

prop_kind fwd_prop() {
    return g_forward_inference ? prop_kind::forward_inference : prop_kind::forward_training;
}

// bias_channels: 0 for no bias.
fwd::primitive_desc fwd_pd(const memory::desc& src, const memory::desc& w,
                           std::int64_t bias_channels, const memory::desc& dst,
                           const Geometry& g, bool allow_empty) {
    if (bias_channels > 0) {
        return fwd::primitive_desc(cpu_engine(), fwd_prop(),
                                   algorithm::convolution_direct, src, w,
                                   plain_desc({bias_channels}), dst, g.stride, g.dilate,
                                   g.pad_l, g.pad_r, op_attr(), allow_empty);
    }
    return fwd::primitive_desc(cpu_engine(), fwd_prop(),
                               algorithm::convolution_direct, src, w, dst, g.stride, g.dilate,
                               g.pad_l, g.pad_r, op_attr(), allow_empty);
}

std::string describe(const char* a, const Shape& sa, const char* b, const Shape& sb) {
    return std::string(a) + " " + shape_str(sa) + " and " + b + " " + shape_str(sb);
}

// -- forward --------------------------------------------------------------------

std::string impl_of(const dnnl::primitive& p) {
    const char* s = nullptr;
    dnnl_primitive_desc_query(p.get_primitive_desc(), dnnl_query_impl_info_str, 0, &s);
    return s ? s : "";
}

// The convolution `conv` (cached under `key`) with a relu post-op on the same
// layouts and implementation, or an empty primitive when oneDNN has none
// (remembered in the cache, so not retried per call).
dnnl::primitive conv_relu_primitive(const dnnl::primitive& conv, const PrimitiveKey& key,
                                    bool with_bias, const Geometry& g) {
    PrimitiveKey fused_key = key;
    fused_key.option("post_relu", 1);
    return PrimitiveCache::global().get_or_none(fused_key, [&] {
        dnnl::post_ops ops;
        ops.append_eltwise(algorithm::eltwise_relu, 0.0f, 0.0f);
        dnnl::primitive_attr attr = op_attr();
        attr.set_post_ops(ops);
        const memory::desc src = query_md(conv, query::src_md),
                           w = query_md(conv, query::weights_md),
                           dst = query_md(conv, query::dst_md);
        fwd::primitive_desc pd =
            with_bias ? fwd::primitive_desc(cpu_engine(), fwd_prop(),
                                            algorithm::convolution_direct, src, w,
                                            query_md(conv, query::weights_md, 1), dst, g.stride,
                                            g.dilate, g.pad_l, g.pad_r, attr, true)
                      : fwd::primitive_desc(cpu_engine(), fwd_prop(),
                                            algorithm::convolution_direct, src, w, dst, g.stride,
                                            g.dilate, g.pad_l, g.pad_r, attr, true);
        if (!pd || std::strcmp(pd.impl_info_str(), impl_of(conv).c_str()) != 0) {
            throw dnnl::error(dnnl_unimplemented, "no fused relu with the same kernel");
        }
        return dnnl::primitive(fwd(pd));
    });
}


TensorPtr conv_forward(const py::object& x_obj, const py::object& w_obj, const py::object& b_obj,
                       const std::vector<std::int64_t>& stride,
                       const std::vector<std::int64_t>& dilate,
                       const std::vector<std::int64_t>& pad_l,
                       const std::vector<std::int64_t>& pad_r, std::int64_t groups,
                       bool defer) {
    constexpr const char* fn = "convolution_forward";
    TensorPtr x = as_tensor_any(fn, "x", x_obj);
    TensorPtr W = as_tensor_any(fn, "W", w_obj);
    TensorPtr b = b_obj.is_none() ? nullptr : as_tensor(fn, "b", b_obj);
    if (x->ndim() < 3) {
        throw py::value_error(std::string(fn) + ": expected x with at least 3 dimensions, got " +
                              shape_str(x->shape()));
    }
    const Geometry g = make_geometry(fn, x->ndim() - 2, stride, dilate, pad_l, pad_r, groups);
    const Shape y_shape = conv_output_shape(fn, x->shape(), W->shape(), g);
    check_bias(fn, b, W->shape()[0]);

    return guard_dnnl(fn, [&] { return describe("x", x->shape(), "W", W->shape()); }, [&] {
        const dims xd = to_dims(x->shape()), wd = weight_dims(W->shape(), groups),
                   yd = to_dims(y_shape);
        // bf16 when x is (mixed_bf16): weights read as bf16 (the reorder
        // converts a float32 master), f32 accumulation, bf16 y; f32 bias.
        const memory::data_type dt = compute_dt({&x});
        const memory::desc x_off = offered_md(x, xd, dt), w_off = offered_md(W, wd, dt);
        auto make_key = [&](const memory::desc& w_md) {
            PrimitiveKey key("convolution_forward");
            key.prop(fwd_prop()).dtype(dt).shape(xd).shape(wd).option("bias", b != nullptr);
            add_geometry(key, g);
            key.text("src", md_text(x_off)).text("weights", md_text(w_md));
            return key;
        };
        dnnl::primitive conv = PrimitiveCache::global().get_or_create(make_key(w_off), [&] {
            fwd::primitive_desc any = fwd_pd(any_md(xd, dt), any_md(wd, dt), b ? y_shape[1] : 0,
                                             any_md(yd, dt), g, false);
            return dnnl::primitive(fwd(offered_or_any(
                any, offers(w_off, !is_any(x_off), wd), [&](const memory::desc& w_try) {
                    return fwd_pd(x_off, w_try, b ? y_shape[1] : 0, any_md(yd, dt), g, true);
                })));
        });
        const memory::desc w_want = query_md(conv, query::weights_md);
        if (is_tensor(w_obj) && may_adopt(W, w_want)) {
            // A parameter on the Intel64 device: adopt the layout for good.
            W->reorder_inplace(w_want);
            PrimitiveCache::global().get_or_create(make_key(w_want), [&] { return conv; });
        }
        std::vector<TensorPtr> keep;
        std::unordered_map<int, memory> args;
        args[DNNL_ARG_SRC] = arg_memory(x, query_md(conv, query::src_md), keep);
        args[DNNL_ARG_WEIGHTS] = weight_memory(W, w_want, keep);
        if (b) args[DNNL_ARG_BIAS] = arg_memory(b, query_md(conv, query::weights_md, 1), keep);
        TensorPtr y = Tensor::empty(query_md(conv, query::dst_md), y_shape);
        args[DNNL_ARG_DST] = y->mem();
        if (!defer) {
            execute(conv, args);
            return y;
        }
        // Deferred: computed when y is first read, with relu folded in as a
        // post-op if relu claims y first (the inputs are kept until then).
        const PrimitiveKey key = make_key(w_want);
        const bool with_bias = b != nullptr;
        defer_primitive(y, conv, args, keep, "convolution_forward",
                        [conv, key, with_bias, g] {
                            return conv_relu_primitive(conv, key, with_bias, g);
                        });
        return y;
    });
}

// -- backward data (and deconvolution forward) ----------------------------------

void add_channel_bias(const TensorPtr& y, const TensorPtr& b) {
    dims bd(y->ndim(), 1);
    bd[1] = y->shape()[1];
    const memory::desc b_md = plain_desc(bd);
    // A float32 bias added to y's values (bf16 ones are rounded again).
    PrimitiveKey key("binary_add_channel_bias");
    key.text("dst", desc_key(y->desc()));
    dnnl::primitive add = PrimitiveCache::global().get_or_create(key, [&] {
        return dnnl::binary(dnnl::binary::primitive_desc(cpu_engine(), algorithm::binary_add,
                                                         y->desc(), b_md, y->desc(), op_attr()));
    });
    std::vector<TensorPtr> keep;
    execute(add, {{DNNL_ARG_SRC_0, y->mem()},
                  {DNNL_ARG_SRC_1, arg_memory(b, b_md, keep)},
                  {DNNL_ARG_DST, y->mem()}});
}

TensorPtr conv_backward_data(const py::object& gy_obj, const py::object& w_obj,
                             const std::vector<std::int64_t>& x_shape,
                             const std::vector<std::int64_t>& stride,
                             const std::vector<std::int64_t>& dilate,
                             const std::vector<std::int64_t>& pad_l,
                             const std::vector<std::int64_t>& pad_r, std::int64_t groups,
                             const py::object& b_obj) {
    constexpr const char* fn = "convolution_backward_data";
    TensorPtr gy = as_tensor_any(fn, "gy", gy_obj);
    TensorPtr W = as_tensor_any(fn, "W", w_obj);
    TensorPtr b = b_obj.is_none() ? nullptr : as_tensor(fn, "b", b_obj);
    const Shape xs(x_shape.begin(), x_shape.end());
    if (xs.size() < 3) {
        throw py::value_error(std::string(fn) + ": expected x_shape with at least 3 "
                              "dimensions, got " + shape_str(xs));
    }
    const Geometry g = make_geometry(fn, xs.size() - 2, stride, dilate, pad_l, pad_r, groups);
    const Shape y_shape = conv_output_shape(fn, xs, W->shape(), g);
    if (gy->shape() != y_shape) {
        throw py::value_error(std::string(fn) + ": expected gy of shape " + shape_str(y_shape) +
                              " (the convolution of x_shape " + shape_str(xs) + " with W " +
                              shape_str(W->shape()) + "), got " + shape_str(gy->shape()));
    }
    check_bias(fn, b, xs[1]);

    return guard_dnnl(fn, [&] { return describe("gy", gy->shape(), "W", W->shape()); }, [&] {
        const dims xd = to_dims(xs), wd = weight_dims(W->shape(), groups), yd = to_dims(y_shape);
        const memory::data_type dt = compute_dt({&gy});  // bf16: gx bf16 too
        // mixed_bf16 deconvolution with a bias: the sum comes float32 and
        // is rounded once after the bias is added (as the NumPy reference)
        const memory::data_type gx_dt = b ? memory::data_type::f32 : dt;
        const memory::desc gy_off = offered_md(gy, yd, dt), w_off = offered_md(W, wd, dt);
        auto make_key = [&](const memory::desc& w_md) {
            PrimitiveKey key("convolution_backward_data");
            key.prop(fwd_prop()).dtype(dt).shape(xd).shape(wd).option("f32_out", gx_dt != dt);
            add_geometry(key, g);
            key.text("diff_dst", md_text(gy_off)).text("weights", md_text(w_md));
            return key;
        };
        dnnl::primitive conv = PrimitiveCache::global().get_or_create(make_key(w_off), [&] {
            const fwd::primitive_desc hint =
                fwd_pd(any_md(xd, dt), any_md(wd, dt), 0, any_md(yd, dt), g, false);
            bwd_data::primitive_desc any(cpu_engine(), algorithm::convolution_direct,
                                         any_md(xd, gx_dt), any_md(wd, dt), any_md(yd, dt),
                                         g.stride, g.dilate,
                                         g.pad_l, g.pad_r, hint, op_attr());
            return dnnl::primitive(bwd_data(offered_or_any(
                any, offers(w_off, !is_any(gy_off), wd), [&](const memory::desc& w_try) {
                    return bwd_data::primitive_desc(cpu_engine(), algorithm::convolution_direct,
                                                    any_md(xd, gx_dt), w_try, gy_off, g.stride,
                                                    g.dilate, g.pad_l, g.pad_r, hint, op_attr(),
                                                    true);
                })));
        });
        const memory::desc w_want = query_md(conv, query::weights_md);
        if (is_tensor(w_obj) && may_adopt(W, w_want)) {
            W->reorder_inplace(w_want);
            PrimitiveCache::global().get_or_create(make_key(w_want), [&] { return conv; });
        }
        std::vector<TensorPtr> keep;
        std::unordered_map<int, memory> args;
        args[DNNL_ARG_DIFF_DST] = arg_memory(gy, query_md(conv, query::diff_dst_md), keep);
        args[DNNL_ARG_WEIGHTS] = weight_memory(W, w_want, keep);
        TensorPtr gx = Tensor::empty(query_md(conv, query::diff_src_md), xs);
        args[DNNL_ARG_DIFF_SRC] = gx->mem();
        execute(conv, args);
        if (b) add_channel_bias(gx, b);
        return gx_dt == dt ? gx : gx->as_data_type(dt);
    });
}

// -- backward weights -------------------------------------------------------------

py::tuple conv_backward_weights(const py::object& x_obj, const py::object& gy_obj,
                                const std::vector<std::int64_t>& w_shape, bool with_bias,
                                const std::vector<std::int64_t>& stride,
                                const std::vector<std::int64_t>& dilate,
                                const std::vector<std::int64_t>& pad_l,
                                const std::vector<std::int64_t>& pad_r, std::int64_t groups,
                                const py::object& w_like_obj) {
    constexpr const char* fn = "convolution_backward_weights";
    TensorPtr x = as_tensor_any(fn, "x", x_obj);
    TensorPtr gy = as_tensor_any(fn, "gy", gy_obj);
    TensorPtr w_like = is_tensor(w_like_obj) ? w_like_obj.cast<TensorPtr>() : nullptr;
    const Shape ws(w_shape.begin(), w_shape.end());
    if (x->ndim() < 3) {
        throw py::value_error(std::string(fn) + ": expected x with at least 3 dimensions, got " +
                              shape_str(x->shape()));
    }
    const Geometry g = make_geometry(fn, x->ndim() - 2, stride, dilate, pad_l, pad_r, groups);
    const Shape y_shape = conv_output_shape(fn, x->shape(), ws, g);
    if (gy->shape() != y_shape) {
        throw py::value_error(std::string(fn) + ": expected gy of shape " + shape_str(y_shape) +
                              " (the convolution of x " + shape_str(x->shape()) +
                              " with a filter " + shape_str(ws) + "), got " +
                              shape_str(gy->shape()));
    }
    if (w_like && w_like->shape() != ws) w_like = nullptr;

    return guard_dnnl(fn, [&] { return describe("x", x->shape(), "gy", gy->shape()); }, [&] {
        const dims xd = to_dims(x->shape()), wd = weight_dims(ws, groups), yd = to_dims(y_shape);
        // bf16 x and gy (mixed_bf16): float32 gW and gb all the same.
        const memory::data_type dt = compute_dt({&x, &gy});
        const memory::desc x_off = offered_md(x, xd, dt), gy_off = offered_md(gy, yd, dt);
        const memory::desc gw_off = offered_md(w_like, wd);
        const memory::desc b_md = plain_desc({ws[0]});
        PrimitiveKey key("convolution_backward_weights");
        key.prop(fwd_prop()).dtype(dt).shape(xd).shape(wd).option("bias", with_bias);
        add_geometry(key, g);
        key.text("src", md_text(x_off)).text("diff_dst", md_text(gy_off))
            .text("diff_weights", md_text(gw_off));
        dnnl::primitive conv = PrimitiveCache::global().get_or_create(key, [&] {
            const fwd::primitive_desc hint =
                fwd_pd(any_md(xd, dt), any_md(wd, dt), with_bias ? ws[0] : 0, any_md(yd, dt), g,
                       false);
            auto make_pd = [&](const memory::desc& s, const memory::desc& w,
                               const memory::desc& d, bool allow_empty) {
                if (with_bias) {
                    return bwd_weights::primitive_desc(
                        cpu_engine(), algorithm::convolution_direct, s, w, b_md, d, g.stride,
                        g.dilate, g.pad_l, g.pad_r, hint, op_attr(), allow_empty);
                }
                return bwd_weights::primitive_desc(cpu_engine(), algorithm::convolution_direct,
                                                   s, w, d, g.stride, g.dilate, g.pad_l,
                                                   g.pad_r, hint, op_attr(),
                                                   allow_empty);
            };
            bwd_weights::primitive_desc any =
                make_pd(any_md(xd, dt), any_md(wd), any_md(yd, dt), false);
            const bool acts = !is_any(x_off) || !is_any(gy_off);
            return dnnl::primitive(bwd_weights(offered_or_any(
                any, offers(gw_off, acts, wd),
                [&](const memory::desc& w_try) { return make_pd(x_off, w_try, gy_off, true); })));
        });
        std::vector<TensorPtr> keep;
        std::unordered_map<int, memory> args;
        args[DNNL_ARG_SRC] = arg_memory(x, query_md(conv, query::src_md), keep);
        args[DNNL_ARG_DIFF_DST] = arg_memory(gy, query_md(conv, query::diff_dst_md), keep);
        TensorPtr gW = Tensor::empty(query_md(conv, query::diff_weights_md), ws);
        args[DNNL_ARG_DIFF_WEIGHTS] = gW->mem();
        TensorPtr gb;
        if (with_bias) {
            gb = Tensor::empty(b_md);
            args[DNNL_ARG_DIFF_BIAS] = gb->mem();
        }
        execute(conv, args);
        // mixed_bf16: the forward reads the float32 master through a bf16
        // conversion anyway, so a plain master adopts, once, the layout its
        // gradient comes in instead of every gradient being reordered to it
        // (ResNet-50: 52 reorders, 17 ms a step; AlexNet's fc: 35 ms).
        if (w_like && dt == memory::data_type::bf16 && may_adopt(w_like, gW->desc()))
            w_like->reorder_inplace(gW->desc());
        // The optimizer updates W with gW element by element: same layout.
        if (w_like && !gW->same_layout(*w_like)) gW = gW->reordered(w_like->desc());
        return py::make_tuple(gW, gb ? py::cast(gb) : py::none());
    });
}

}  // namespace

void register_convolution(py::module_& m) {
    m.def(
        "set_convolution_forward_inference", [](bool on) { g_forward_inference = on; },
        py::arg("on"),
        "Create forward convolutions as forward_inference (brgconv, NHWC) instead of "
        "forward_training (layouts shared with the backward kernels).");
    m.def("convolution_forward", &conv_forward, py::arg("x"), py::arg("W"), py::arg("b"),
          py::arg("stride"), py::arg("dilate"), py::arg("pad_l"), py::arg("pad_r"),
          py::arg("groups") = 1, py::arg("defer") = false,
          R"doc(N-d convolution y = x * W (+ b), as a Tensor in the layout oneDNN chose.

x: (N, C, s...) and W: (O, C / groups, k...) Tensors or float32 ndarrays;
b: (O,) or None. stride, dilate (Chainer's: 1 = dense), pad_l, pad_r: one
value per spatial axis; output size (s + pad_l + pad_r - (k-1)*dilate - 1)
// stride + 1. A plain W Tensor is re-laid out in place, once, to the layout
the primitive wants. With defer=True the values are computed when y is first
read (fuse_relu may fold a relu post-op in before that); the inputs' buffers
are kept until then, and any write through raw_view/copy_from computes them
first.
)doc");
    m.def("convolution_backward_data", &conv_backward_data, py::arg("gy"), py::arg("W"),
          py::arg("x_shape"), py::arg("stride"), py::arg("dilate"), py::arg("pad_l"),
          py::arg("pad_r"), py::arg("groups") = 1, py::arg("b") = py::none(),
          R"doc(Gradient of a convolution w.r.t. its input, of shape x_shape.

Also the forward pass of deconvolution (then b, of x_shape[1] channels, is
added). Arguments as for convolution_forward.
)doc");
    m.def("convolution_backward_weights", &conv_backward_weights, py::arg("x"), py::arg("gy"),
          py::arg("w_shape"), py::arg("with_bias"), py::arg("stride"), py::arg("dilate"),
          py::arg("pad_l"), py::arg("pad_r"), py::arg("groups") = 1,
          py::arg("w_like") = py::none(),
          R"doc(Gradients of a convolution w.r.t. W (and b): a tuple (gW, gb or None).

gW has shape w_shape, in the layout of the Tensor w_like when one is given
(the weight itself), so that optimizer updates need no reorder.
)doc");
}

}  // namespace cpuframe
