// What bfloat16 can give on this CPU, measured with oneDNN itself (issue 17's
// groundwork): a large matmul and convolution layers of the convnet harness's
// models in float32 and in bf16 (bf16 sources and weights, float32
// accumulation and output), each with the kernel oneDNN picked.
//
//   benchmarks/bf16/run.sh      (builds this against the oneDNN wheel, runs it)
//
// GFLOP/s = 2 * multiply-adds / time, the median of --iters runs after a
// warm-up. oneDNN's threads: OMP_NUM_THREADS.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

engine eng(engine::kind::cpu, 0);
stream strm(eng);
int iters = 20;

double median_ms(const std::function<void()>& run) {
    for (int i = 0; i < 3; ++i) run();
    strm.wait();
    std::vector<double> ms;
    for (int i = 0; i < iters; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        run();
        strm.wait();
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

memory filled(const memory::desc& md, float value) {
    memory m(md, eng);
    // Values i % 7 + 1 scaled, rounded to bf16 by truncation where bf16.
    const std::size_t n = md.get_size() / memory::data_type_size(md.get_data_type());
    if (md.get_data_type() == dt::f32) {
        float* p = static_cast<float*>(m.get_data_handle());
        for (std::size_t i = 0; i < n; ++i) p[i] = value * static_cast<float>(i % 7 + 1);
    } else {
        std::uint16_t* p = static_cast<std::uint16_t*>(m.get_data_handle());
        for (std::size_t i = 0; i < n; ++i) {
            float v = value * static_cast<float>(i % 7 + 1);
            std::uint32_t bits;
            std::memcpy(&bits, &v, sizeof bits);
            p[i] = static_cast<std::uint16_t>(bits >> 16);
        }
    }
    return m;
}

void matmul_case(const char* name, memory::dim M, memory::dim N, memory::dim K, dt in) {
    memory::desc a({M, K}, in, tag::ab), b({K, N}, in, tag::any), c({M, N}, dt::f32, tag::ab);
    matmul::primitive_desc pd(eng, a, b, c);
    memory ma = filled(pd.src_desc(), 0.01f), mb = filled(pd.weights_desc(), 0.01f);
    memory mc(pd.dst_desc(), eng);
    matmul prim(pd);
    const double ms = median_ms([&] {
        prim.execute(strm, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
    });
    const double gflop = 2.0 * M * N * K / 1e9;
    std::printf("%-34s %-5s %9.3f ms %8.1f GFLOP/s  %s\n", name, in == dt::f32 ? "f32" : "bf16",
                ms, gflop / (ms / 1e3), pd.impl_info_str());
}

void conv_case(const char* name, memory::dim N, memory::dim C, memory::dim H, memory::dim K,
               memory::dim R, memory::dim S, memory::dim pad, dt in, prop_kind prop) {
    const memory::dim OH = (H + 2 * pad - R) / S + 1;
    memory::desc src({N, C, H, H}, in, tag::any), wei({K, C, R, R}, in, tag::any),
        dst({N, K, OH, OH}, in == dt::f32 ? dt::f32 : dt::bf16, tag::any);
    convolution_forward::primitive_desc pd(eng, prop, algorithm::convolution_direct, src, wei,
                                           dst, {S, S}, {pad, pad}, {pad, pad});
    memory ms_ = filled(pd.src_desc(), 0.01f), mw = filled(pd.weights_desc(), 0.01f);
    memory md(pd.dst_desc(), eng);
    convolution_forward prim(pd);
    const double ms = median_ms([&] {
        prim.execute(strm, {{DNNL_ARG_SRC, ms_}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}});
    });
    const double gflop = 2.0 * N * K * OH * OH * C * R * R / 1e9;
    std::printf("%-34s %-5s %9.3f ms %8.1f GFLOP/s  %s\n", name, in == dt::f32 ? "f32" : "bf16",
                ms, gflop / (ms / 1e3), pd.impl_info_str());
}

// The two backward passes of the same layer: data (gradient of the input,
// bf16 in and out) and weights (bf16 inputs, float32 weight gradient, as a
// float32 master weight wants it).
void conv_bwd_cases(const char* name, memory::dim N, memory::dim C, memory::dim H, memory::dim K,
                    memory::dim R, memory::dim S, memory::dim pad, dt in) {
    const memory::dim OH = (H + 2 * pad - R) / S + 1;
    const dt out = in == dt::f32 ? dt::f32 : dt::bf16;
    memory::desc src({N, C, H, H}, in, tag::any), wei({K, C, R, R}, in, tag::any),
        dst({N, K, OH, OH}, out, tag::any), gwei({K, C, R, R}, dt::f32, tag::any);
    convolution_forward::primitive_desc hint(eng, prop_kind::forward_training,
                                             algorithm::convolution_direct, src, wei, dst,
                                             {S, S}, {pad, pad}, {pad, pad});
    const double gflop = 2.0 * N * K * OH * OH * C * R * R / 1e9;
    const char* kind = in == dt::f32 ? "f32" : "bf16";
    {
        convolution_backward_data::primitive_desc pd(eng, algorithm::convolution_direct, src,
                                                     wei, dst, {S, S}, {pad, pad}, {pad, pad},
                                                     hint);
        memory gd = filled(pd.diff_dst_desc(), 0.01f), w = filled(pd.weights_desc(), 0.01f);
        memory gs(pd.diff_src_desc(), eng);
        convolution_backward_data prim(pd);
        const double ms = median_ms([&] {
            prim.execute(strm, {{DNNL_ARG_DIFF_DST, gd}, {DNNL_ARG_WEIGHTS, w},
                                {DNNL_ARG_DIFF_SRC, gs}});
        });
        std::printf("%-34s %-5s %9.3f ms %8.1f GFLOP/s  %s (backward data)\n", name, kind, ms,
                    gflop / (ms / 1e3), pd.impl_info_str());
    }
    {
        convolution_backward_weights::primitive_desc pd(
            eng, algorithm::convolution_direct, src, gwei, dst, {S, S}, {pad, pad}, {pad, pad},
            hint);
        memory x = filled(pd.src_desc(), 0.01f), gd = filled(pd.diff_dst_desc(), 0.01f);
        memory gw(pd.diff_weights_desc(), eng);
        convolution_backward_weights prim(pd);
        const double ms = median_ms([&] {
            prim.execute(strm, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, gd},
                                {DNNL_ARG_DIFF_WEIGHTS, gw}});
        });
        std::printf("%-34s %-5s %9.3f ms %8.1f GFLOP/s  %s (backward weights)\n", name, kind,
                    ms, gflop / (ms / 1e3), pd.impl_info_str());
    }
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--iters") == 0) iters = std::atoi(argv[i + 1]);
    }
    std::printf("oneDNN %d.%d.%d (ONEDNN_MAX_CPU_ISA=%s)\n", dnnl_version()->major,
                dnnl_version()->minor, dnnl_version()->patch,
                std::getenv("ONEDNN_MAX_CPU_ISA") ? std::getenv("ONEDNN_MAX_CPU_ISA") : "unset");
    // A case oneDNN has no kernel for (bf16 below AVX-512) says so and the
    // rest go on.
    auto guarded = [](const char* name, dt in, const std::function<void()>& run) {
        try {
            run();
        } catch (const dnnl::error& e) {
            std::printf("%-34s %-5s no kernel on this ISA (%s)\n", name,
                        in == dt::f32 ? "f32" : "bf16", e.what());
        }
    };
    for (dt in : {dt::f32, dt::bf16}) {
        guarded("matmul 2048x2048x2048", in,
                [&] { matmul_case("matmul 2048x2048x2048", 2048, 2048, 2048, in); });
    }
    // (name, N, C, H, K, R, stride, pad): layers of the harness's models, batch 16
    struct Conv { const char* name; int N, C, H, K, R, S, P; };
    const Conv convs[] = {
        {"alexnet conv2 (64->192, 5x5, 27)", 16, 64, 27, 192, 5, 1, 2},
        {"vgg-a conv3 (128->256, 3x3, 56)", 16, 128, 56, 256, 3, 1, 1},
        {"resnet50 res3 (128->128, 3x3, 28)", 16, 128, 28, 128, 3, 1, 1},
        {"resnet50 res4 1x1 (256->1024, 14)", 16, 256, 14, 1024, 1, 1, 0},
        {"googlenet 3x3 (96->128, 28)", 16, 96, 28, 128, 3, 1, 1},
    };
    for (const Conv& c : convs) {
        for (dt in : {dt::f32, dt::bf16}) {
            guarded(c.name, in, [&] {
                conv_case(c.name, c.N, c.C, c.H, c.K, c.R, c.S, c.P, in,
                          prop_kind::forward_training);
            });
        }
    }
    for (dt in : {dt::f32, dt::bf16}) {
        guarded("resnet50 res3 (128->128, 3x3, 28)", in, [&] {
            conv_bwd_cases("resnet50 res3 (128->128, 3x3, 28)", 16, 128, 28, 128, 3, 1, 1, in);
        });
    }
    return 0;
}
