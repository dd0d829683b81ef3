// cpuframe's vector kernels for avx512 (see kernels_impl.hpp; CMake sets this
// unit's ISA flags).
#define CPUFRAME_SIMD_TABLE kernels_avx512
#include "kernels_impl.hpp"
