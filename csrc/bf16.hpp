// bfloat16 values one at a time, for the loops of ours that read or write
// bf16 storage (mixed_bf16): conversions round as the CPU's VCVTNEPS2BF16 and
// oneDNN's reorders do: to nearest even, NaN stays NaN (quiet), float32
// subnormals become zero of their sign.
#pragma once

#include <cstdint>
#include <cstring>

namespace cpuframe {

using bf16_t = std::uint16_t;

inline bf16_t to_bf16(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7f800000u) == 0) return static_cast<bf16_t>((u >> 16) & 0x8000u);  // 0, subnormal
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<bf16_t>((u >> 16) | 0x40u);  // NaN
    return static_cast<bf16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

inline float from_bf16(bf16_t b) {
    const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

}  // namespace cpuframe
