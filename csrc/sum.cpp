// The sum of same-shaped arrays (gradient accumulation) on oneDNN's sum
// primitive. The result takes the layout of the first Tensor operand; other
// operands in another layout are reordered to it. Equal layouts add element by
// element, so the primitive runs on the flat physical buffers.
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "array_utils.hpp"
#include "engine.hpp"
#include "ops.hpp"
#include "primitive_cache.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

TensorPtr sum_tensors(const py::sequence& xs) {
    constexpr const char* fn = "sum";
    const std::size_t n = xs.size();
    if (n < 1) throw py::value_error("sum: expected at least one array, got none");
    std::vector<TensorPtr> ts;
    ts.reserve(n);
    const TensorPtr* ref = nullptr;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string arg = "xs[" + std::to_string(i) + "]";
        ts.push_back(as_tensor_any(fn, arg.c_str(), xs[i]));
        if (i && ts[i]->shape() != ts[0]->shape()) {
            throw py::value_error("sum: expected arrays of one shape, got " +
                                  shape_str(ts[0]->shape()) + " and " + shape_str(ts[i]->shape()));
        }
    }
    // bf16 when any operand is (mixed_bf16: the residual add), summed in f32
    // and rounded once.
    memory::data_type dt = memory::data_type::f32;
    for (const TensorPtr& t : ts) {
        if (t->dtype() == memory::data_type::bf16) dt = t->dtype();
    }
    for (std::size_t i = 0; i < n && !ref; ++i) {
        if (is_tensor(xs[i]) && ts[i]->dtype() == dt) ref = &ts[i];
    }
    // All NumPy: plain layout (strided views are reordered to it).
    const memory::desc out_md =
        ref ? (*ref)->desc() : plain_desc(ts[0]->desc().get_dims(), dt);
    TensorPtr y = Tensor::empty(out_md, ts[0]->shape());
    if (y->size() == 0) return y;
    return guard_dnnl(fn, [&] { return std::to_string(n) + " arrays of " + shape_str(y->shape()); },
                      [&] {
        const memory::dim flat =
            static_cast<memory::dim>(y->nbytes() / memory::data_type_size(dt));
        const memory::desc md({flat}, dt, memory::format_tag::a);
        PrimitiveKey key("sum");
        key.dtype(dt).option("n", static_cast<std::int64_t>(n)).shape({flat});
        dnnl::primitive sum = PrimitiveCache::global().get_or_create(key, [&] {
            std::vector<float> scales(n, 1.0f);
            std::vector<memory::desc> mds(n, md);
            return dnnl::sum(dnnl::sum::primitive_desc(cpu_engine(), md, scales, mds, op_attr()));
        });
        std::vector<TensorPtr> keep;
        std::unordered_map<int, memory> args;
        for (std::size_t i = 0; i < n; ++i) {
            TensorPtr t = in_layout(ts[i], out_md);
            args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = t->mem_as(md);
            keep.push_back(t);
        }
        args[DNNL_ARG_DST] = y->mem_as(md);
        execute(sum, args);
        return y;
    });
}

}  // namespace

void register_sum(py::module_& m) {
    m.def("sum", &sum_tensors, py::arg("xs"),
          R"doc(Element-wise sum of a sequence of same-shaped arrays, as a Tensor.

Operands are Tensors or float32 ndarrays; the result has the layout of the
first Tensor operand (plain when all are ndarrays).
)doc");
}

}  // namespace cpuframe
