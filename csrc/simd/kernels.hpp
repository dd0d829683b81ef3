// cpuframe's own vector kernels (the LSTM gate passes, the fused softmax cross
// entropy), compiled once per ISA and chosen at run time.
//
// kernel_isa() starts as the best ISA both this build and this CPU have;
// cpuframe/_isa.py lowers it through set_kernel_isa() when the module loads, as
// CPUFRAME_MAX_CPU_ISA (or ONEDNN_MAX_CPU_ISA) asks.
#pragma once

#include <cstdint>

namespace cpuframe {

enum class KernelIsa : int { scalar = 0, avx2 = 1, avx512 = 2 };

// One ISA's kernels.
struct SimdKernels {
    // max_k x[k] over a row of c scores (c >= 1); NaN when the row holds one.
    float (*row_max)(const float* x, std::int64_t c);
    // sum_k exp(x[k] - m) over a row of c scores.
    float (*row_sum_exp)(const float* x, float m, std::int64_t c);
    // g[k] = f * exp(x[k] - lse).
    void (*row_grad)(const float* x, float lse, float f, float* g, std::int64_t c);
    // One row of the LSTM forward gate pass: g (4N pre-activations, gate
    // blocks i, f, c~, o) becomes the activated gates; c = f * cp + i * c~,
    // h = y = o * tanh(c).
    void (*lstm_row_forward)(float* g, const float* cp, float* c, float* h, float* y,
                             std::int64_t N);
    // One row of the LSTM backward gate pass: g the activated gates, c = c_t,
    // cp = c_{t-1}; dh + gy the gradient of h_t; dc in: that of c_t, out: that
    // of c_{t-1}; dg: the pre-activation gradients.
    void (*lstm_row_backward)(const float* g, const float* c, const float* cp, const float* dh,
                              const float* gy, float* dc, float* dg, std::int64_t N);
    // One row of the GRU forward gate pass (linear before reset): g (3N
    // pre-activations of the input side, bias included: u, r, o) becomes the
    // activated gates given hw (3N, the hidden side) and bhn (N, the hidden
    // bias of o); hn = hw_o + bhn, hnew = u * h + (1 - u) * o.
    void (*gru_row_forward)(float* g, const float* hw, const float* bhn, const float* h,
                            float* hn, float* hnew, std::int64_t N);
    // Whether every one of the n floats at p lies in [low, high] (a NaN
    // never does); stops at the first block holding one that does not.
    bool (*all_within)(const float* p, std::int64_t n, float low, float high);
    // The gradient of local response normalization across channels for one
    // block of b positions, channel-major rows of stride ld: x[c * ld + i],
    // gy likewise, gx written likewise (with Chainer's alpha):
    //     u_c = k + alpha * sum_{|j - c| <= half} x_j ** 2,
    //     gx_c = gy_c u_c ** -beta
    //            - 2 alpha beta x_c sum_{|j - c| <= half} gy_j x_j u_j ** -beta / u_j
    // work: 3 * c * ld floats. Window sums are direct (no running sum, which
    // one NaN would spoil for every later channel).
    void (*lrn_backward_block)(const float* x, const float* gy, float* gx, float* work,
                               std::int64_t c, std::int64_t b, std::int64_t ld, std::int64_t half,
                               float alpha, float beta, float k);
};

// The kernels of the current ISA.
const SimdKernels& simd_kernels();

KernelIsa kernel_isa();
// The best ISA this build and this CPU support.
KernelIsa kernel_isa_supported();
// Lower (or raise, up to kernel_isa_supported()) the ISA; throws
// std::invalid_argument for an ISA this build or CPU cannot run.
void set_kernel_isa(KernelIsa isa);

const char* kernel_isa_name(KernelIsa isa);
// "avx512" / "avx2" / "scalar"; throws std::invalid_argument otherwise.
KernelIsa parse_kernel_isa(const char* name);

}  // namespace cpuframe
