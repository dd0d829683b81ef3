// cpuframe's vector kernels for avx2 (see kernels_impl.hpp; CMake sets this
// unit's ISA flags).
#define CPUFRAME_SIMD_TABLE kernels_avx2
#include "kernels_impl.hpp"
