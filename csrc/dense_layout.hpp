// Small layout helpers shared by the pooling, normalization, concat and
// activation routes (header-only).
//
// Those ops accept an input in the layout it arrives in (plain NCHW from
// NumPy, NHWC or blocked from a convolution) and write their output in the
// same layout, so activations flow between primitives without reorders. The
// one thing they cannot take as it is, a NumPy view with gaps (a slice), is
// copied to plain layout first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "tensor.hpp"

namespace cpuframe {

// True when md's buffer holds exactly its (padded) elements, each once: a
// plain, permuted (NHWC) or blocked layout, not a strided view with gaps or
// overlaps. Element-wise ops may then run on the buffer as one flat array,
// and a primitive may write an output of the same desc.
inline bool is_dense(const memory::desc& md) {
    if (md.get_format_kind() != memory::format_kind::blocked) return false;
    if (md.get_submemory_offset() != 0) return false;
    const int n = md.get_ndims();
    if (n == 0) return false;
    const memory::dims padded = md.get_padded_dims();
    std::int64_t count = 1;
    for (auto d : padded) count *= d;
    const std::size_t elem = memory::data_type_size(md.get_data_type());
    if (md.get_inner_nblks() > 0) {
        // Blocked layouts are made by oneDNN, which lays them out densely.
        return md.get_size() == static_cast<std::size_t>(count) * elem;
    }
    // Plain strides: sorted by stride, each must be the product of the
    // lengths inside it (size-1 axes do not matter).
    const memory::dims strides = md.get_strides();
    std::vector<int> order;
    for (int i = 0; i < n; ++i)
        if (padded[i] != 1) order.push_back(i);
    std::sort(order.begin(), order.end(),
              [&](int a, int b) { return strides[a] < strides[b]; });
    std::int64_t expect = 1;
    for (int axis : order) {
        if (strides[axis] != expect) return false;
        expect *= padded[axis];
    }
    return true;
}

// t itself when it is dense, else a plain copy (counted as a reorder).
inline TensorPtr dense_tensor(const TensorPtr& t) {
    if (is_dense(t->desc())) return t;
    return t->reordered(plain_desc(t->desc().get_dims(), t->dtype()));
}

// A 1-D desc (md's data type) over the whole physical buffer of a dense desc
// (padding included): element-wise primitives see every layout alike.
inline memory::desc flat_desc(const memory::desc& md) {
    const memory::data_type dt = md.get_data_type();
    const memory::dim n = static_cast<memory::dim>(md.get_size() / memory::data_type_size(dt));
    return memory::desc({n}, dt, memory::format_tag::a);
}

inline std::string join_dims(const memory::dims& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(v[i]);
    }
    return s;
}

// A desc of dims (f32 unless dt says otherwise) that lets the primitive choose
// the layout.
inline memory::desc any_f32(const memory::dims& d,
                            memory::data_type dt = memory::data_type::f32) {
    return memory::desc(d, dt, memory::format_tag::any);
}

}  // namespace cpuframe
