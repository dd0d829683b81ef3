// Concatenation along one axis on oneDNN's concat primitive, and its
// gradient: the pieces of gy, each reordered out of a sub-memory of gy into
// the layout its input had.
#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>

#include "array_utils.hpp"
#include "dense_layout.hpp"
#include "engine.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

using dnnl::query;

struct ConcatContext {
    int axis = 0;
    Shape y_shape;
    std::vector<Shape> shapes;
    std::vector<memory::desc> grad_mds;  // the layout each input's gradient gets
};
using ConcatContextPtr = std::shared_ptr<ConcatContext>;

std::string shapes_text(const std::vector<TensorPtr>& xs) {
    std::string s;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (i) s += ", ";
        s += shape_str(xs[i]->shape()) + " " + xs[i]->format();
    }
    return s;
}

py::tuple concat_forward(const py::sequence& xs_obj, int axis) {
    constexpr const char* fn = "concat_forward";
    const std::size_t n = xs_obj.size();
    if (n == 0) throw py::value_error(std::string(fn) + ": expected at least one array");
    std::vector<TensorPtr> xs;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string arg = "xs[" + std::to_string(i) + "]";
        xs.push_back(as_tensor_any(fn, arg.c_str(), xs_obj[i]));
    }
    // One data type for all (oneDNN's concat mixes none): bf16 when any input
    // is (mixed_bf16), the others converted.
    memory::data_type dt = memory::data_type::f32;
    for (const TensorPtr& x : xs) {
        if (x->dtype() == memory::data_type::bf16) dt = x->dtype();
    }
    const int ndim = xs[0]->ndim();
    if (ndim < 1 || axis < 0 || axis >= ndim) {
        throw py::value_error(std::string(fn) + ": expected 0 <= axis < ndim, got axis " +
                              std::to_string(axis) + " for shape " + shape_str(xs[0]->shape()));
    }
    auto ctx = std::make_shared<ConcatContext>();
    ctx->axis = axis;
    ctx->y_shape = xs[0]->shape();
    ctx->y_shape[axis] = 0;
    for (const TensorPtr& x : xs) {
        Shape s = x->shape();
        bool ok = static_cast<int>(s.size()) == ndim && x->size() > 0;
        for (int d = 0; ok && d < ndim; ++d) ok = d == axis || s[d] == ctx->y_shape[d];
        if (!ok) {
            throw py::value_error(std::string(fn) + ": expected non-empty arrays of equal shape "
                                  "but along axis " + std::to_string(axis) + ", got " +
                                  shapes_text(xs));
        }
        ctx->y_shape[axis] += s[axis];
        ctx->shapes.push_back(s);
        ctx->grad_mds.push_back(is_dense(x->desc()) ? x->desc()
                                                    : plain_desc(x->desc().get_dims()));
    }
    return guard_dnnl(fn, [&] { return shapes_text(xs); }, [&] {
        for (TensorPtr& x : xs) x = x->as_data_type(dt);
        for (std::size_t i = 0; i < n; ++i) ctx->grad_mds[i] = with_data_type(ctx->grad_mds[i], dt);
        std::vector<memory::desc> srcs;
        PrimitiveKey key("concat");
        key.option("axis", axis);
        for (const TensorPtr& x : xs) {
            srcs.push_back(x->desc());
            key.text("src", desc_key(x->desc()));
        }
        dnnl::primitive prim = PrimitiveCache::global().get_or_create(key, [&] {
            return dnnl::primitive(
                dnnl::concat(dnnl::concat::primitive_desc(cpu_engine(), axis, srcs, op_attr())));
        });
        TensorPtr y = Tensor::empty(query_md(prim, query::dst_md), ctx->y_shape);
        std::unordered_map<int, memory> args{{DNNL_ARG_DST, y->mem()}};
        for (std::size_t i = 0; i < n; ++i)
            args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = xs[i]->mem();
        execute(prim, args);
        return py::make_tuple(y, ctx);
    });
}

// A dense unblocked desc of md's dims with md's outer axis order ("abcd" for
// aBcd16b, "acdb" for acdb): a layout any sub-memory can be cut from.
memory::desc outer_order_desc(const memory::desc& md) {
    const memory::dims d = md.get_dims();
    const memory::dims strides = md.get_strides();
    std::vector<int> order(d.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return strides[a] > strides[b]; });
    std::string letters;
    for (int a : order) letters += static_cast<char>('a' + a);
    return permuted_desc(d, letters);
}

py::list concat_backward(const py::object& gy_obj, const ConcatContextPtr& ctx) {
    constexpr const char* fn = "concat_backward";
    // Any data type: each gx comes in its input's layout and gy's data type
    // (splitting changes no value: a float32 gy is not rounded).
    TensorPtr gy = as_tensor_any(fn, "gy", gy_obj);
    if (gy->shape() != ctx->y_shape) {
        throw py::value_error(std::string(fn) + ": expected gy of the concatenated shape " +
                              shape_str(ctx->y_shape) + ", got " + shape_str(gy->shape()));
    }
    return guard_dnnl(fn, [&] { return "gy " + shape_str(gy->shape()) + " " + gy->format(); },
                      [&] {
        const std::size_t n = ctx->shapes.size();
        auto pieces = [&](const TensorPtr& src, std::vector<memory::desc>& subs) {
            subs.clear();
            memory::dims offsets(ctx->y_shape.size(), 0);
            for (std::size_t i = 0; i < n; ++i) {
                memory::desc sub =
                    src->desc().submemory_desc(to_dims(ctx->shapes[i]), offsets, true);
                if (is_empty_md(sub)) return false;
                subs.push_back(sub);
                offsets[ctx->axis] += ctx->shapes[i][ctx->axis];
            }
            return true;
        };
        std::vector<memory::desc> subs;
        TensorPtr src = dense_tensor(gy);
        if (!pieces(src, subs)) {
            // A blocked axis cut off its block boundary: go through a plain
            // layout of the same axis order.
            src = src->reordered(outer_order_desc(src->desc()));
            pieces(src, subs);
        }
        py::list gxs;
        for (std::size_t i = 0; i < n; ++i) {
            const memory::desc& md = ctx->grad_mds[i];
            TensorPtr gx = Tensor::empty(
                md.get_data_type() == src->dtype() ? md : with_data_type(md, src->dtype()),
                ctx->shapes[i]);
            reorder_memory(memory(subs[i], cpu_engine(), src->data()), gx->mem());
            gxs.append(gx);
        }
        return gxs;
    });
}

}  // namespace

void register_concat(py::module_& m) {
    py::class_<ConcatContext, ConcatContextPtr>(
        m, "ConcatContext", "What concat_backward needs from a concat_forward call.");
    m.def("concat_forward", &concat_forward, py::arg("xs"), py::arg("axis"),
          R"doc(Concatenates the non-empty arrays xs along axis (0 <= axis < ndim).

Inputs may come in any layouts; returns (y, context) with y in the layout
oneDNN chose.
)doc");
    m.def("concat_backward", &concat_backward, py::arg("gy"), py::arg("context"),
          R"doc(The gradients of a concat_forward call: gy split along the axis.

A list with one tensor per input, in that input's layout.
)doc");
}

}  // namespace cpuframe
