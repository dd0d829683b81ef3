// What the recurrent-network files share (rnn.cpp, rnn_primitives.cpp,
// lstm_layer.cpp, lstm_cell.cpp): short names, plain float buffers of Tensors,
// and the size below which a recurrence runs on one thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>

#include "engine.hpp"
#include "tensor.hpp"

namespace cpuframe::rnn {

using dnnl::algorithm;
using dnnl::prop_kind;
using dims = memory::dims;
using tag = memory::format_tag;
using i64 = std::int64_t;

constexpr memory::data_type f32 = memory::data_type::f32;

// -- buffers ----------------------------------------------------------------------

inline float* fptr(const TensorPtr& t) { return static_cast<float*>(t->data()); }
inline std::uint16_t* bptr(const TensorPtr& t) { return static_cast<std::uint16_t*>(t->data()); }

inline memory mem_at(const memory::desc& md, float* p) { return memory(md, cpu_engine(), p); }

inline void copy_rows(float* dst, const float* src, i64 rows, i64 n) {
    if (rows > 0) std::memcpy(dst, src, static_cast<std::size_t>(rows * n) * sizeof(float));
}

inline TensorPtr new_plain(const Shape& shape) {
    return Tensor::empty(plain_desc(to_dims(shape)), shape);
}

// obj (a Tensor or float32 ndarray) as a dense row-major Tensor of `shape`,
// stored as dt (bf16: rounded when it comes as float32).
inline TensorPtr plain_input(const char* fn, const char* arg, const py::handle& obj,
                             const Shape& shape, memory::data_type dt = f32) {
    TensorPtr t = dt == f32 ? as_tensor(fn, arg, obj) : as_tensor_any(fn, arg, obj);
    if (t->shape() != shape) {
        throw py::value_error(std::string(fn) + ": expected " + arg + " of shape " +
                              shape_str(shape) + ", got " + shape_str(t->shape()));
    }
    if (t->plain_as(dt)) return t;
    return in_layout(t, plain_desc(to_dims(shape), dt));
}

// The packed steps of a layer of our own kernels (LstmLayer, GruLayer): D
// directions, input size C, N units, B state rows, R packed rows; the rows
// of step t and its first packed row.
struct PackedSteps {
    i64 D = 1, C = 0, N = 0, B = 0, R = 0;
    std::vector<i64> batches, offsets;

    void set_steps(i64 d, i64 c, i64 n, i64 b, i64 r, const std::vector<i64>& steps) {
        D = d;
        C = c;
        N = n;
        B = b;
        R = r;
        batches = steps;
        offsets.clear();
        i64 row = 0;
        for (i64 rows : steps) {
            offsets.push_back(row);
            row += rows;
        }
    }
};

// Multiply-adds of one step below which a layer runs on one thread (see
// ThreadLimit in threads.hpp).
constexpr i64 small_step_macs = i64{1} << 20;

}  // namespace cpuframe::rnn
