// Each op family's source file registers its functions on the module.
#pragma once

#include <pybind11/pybind11.h>

namespace cpuframe {

void register_tensor(pybind11::module_& m);
void register_deferred(pybind11::module_& m);
void register_eltwise(pybind11::module_& m);
void register_convolution(pybind11::module_& m);
void register_inner_product(pybind11::module_& m);
void register_sum(pybind11::module_& m);
// Part B: pooling, normalizations, concat, activations.
void register_pooling(pybind11::module_& m);
void register_batch_normalization(pybind11::module_& m);
void register_lrn(pybind11::module_& m);
void register_concat(pybind11::module_& m);
void register_activation(pybind11::module_& m);
// Recurrent layers (issue 6).
void register_rnn(pybind11::module_& m);
// F.lstm's cell and L.LSTM's fused step (lstm_cell.cpp).
void register_lstm_cell(pybind11::module_& m);
void register_softmax_xent(pybind11::module_& m);
// Element-wise optimizer updates (optimizer.cpp).
void register_optimizer(pybind11::module_& m);

}  // namespace cpuframe
