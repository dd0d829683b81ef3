// cpuframe's vector kernels for scalar (see kernels_impl.hpp; CMake sets this
// unit's ISA flags).
#define CPUFRAME_SIMD_TABLE kernels_scalar
#include "kernels_impl.hpp"
