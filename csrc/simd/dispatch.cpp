// Which ISA's kernels run (see kernels.hpp).
#include <atomic>
#include <cctype>
#include <stdexcept>
#include <string>

#include "kernels.hpp"

namespace cpuframe {

extern const SimdKernels kernels_scalar;
#if defined(CPUFRAME_SIMD_X86)
extern const SimdKernels kernels_avx2;
extern const SimdKernels kernels_avx512;
#endif

namespace {

KernelIsa detect() {
#if defined(CPUFRAME_SIMD_X86)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return KernelIsa::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return KernelIsa::avx2;
#endif
    return KernelIsa::scalar;
}

std::atomic<int>& current() {
    static std::atomic<int> isa{static_cast<int>(kernel_isa_supported())};
    return isa;
}

}  // namespace

KernelIsa kernel_isa_supported() {
    static const KernelIsa best = detect();
    return best;
}

KernelIsa kernel_isa() { return static_cast<KernelIsa>(current().load(std::memory_order_relaxed)); }

void set_kernel_isa(KernelIsa isa) {
    if (static_cast<int>(isa) > static_cast<int>(kernel_isa_supported())) {
        throw std::invalid_argument(std::string("set_kernel_isa: this CPU (or build) runs at most '") +
                                    kernel_isa_name(kernel_isa_supported()) + "', got '" +
                                    kernel_isa_name(isa) + "'");
    }
    current().store(static_cast<int>(isa), std::memory_order_relaxed);
}

const SimdKernels& simd_kernels() {
    switch (kernel_isa()) {
#if defined(CPUFRAME_SIMD_X86)
        case KernelIsa::avx512: return kernels_avx512;
        case KernelIsa::avx2: return kernels_avx2;
#endif
        default: return kernels_scalar;
    }
}

const char* kernel_isa_name(KernelIsa isa) {
    switch (isa) {
        case KernelIsa::avx512: return "avx512";
        case KernelIsa::avx2: return "avx2";
        case KernelIsa::scalar: return "scalar";
    }
    return "scalar";
}

KernelIsa parse_kernel_isa(const char* name) {
    std::string s(name ? name : "");
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (s == "avx512") return KernelIsa::avx512;
    if (s == "avx2") return KernelIsa::avx2;
    if (s == "scalar") return KernelIsa::scalar;
    throw std::invalid_argument(
        "kernel ISA: expected 'avx512', 'avx2' or 'scalar', got '" + std::string(name ? name : "") +
        "'");
}

}  // namespace cpuframe
