// Each op family's source file registers its functions on the module.
#pragma once

#include <pybind11/pybind11.h>

namespace cpuframe {

void register_eltwise(pybind11::module_& m);

}  // namespace cpuframe
