// cpuframe._dnnl: cpuframe's oneDNN kernels. Library information and the
// primitive cache controls are defined here; each op family registers itself.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/pybind11.h>

#if defined(CPUFRAME_HAVE_OPENMP)
#include <omp.h>
#endif

#include "ops.hpp"
#include "primitive_cache.hpp"
#include "simd/kernels.hpp"

namespace py = pybind11;

namespace {

std::tuple<int, int, int> onednn_version() {
    const dnnl::version_t* v = dnnl::version();
    return {v->major, v->minor, v->patch};
}

std::string onednn_version_string() {
    const dnnl::version_t* v = dnnl::version();
    std::string s = std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                    std::to_string(v->patch);
    const std::string hash = v->hash ? v->hash : "";
    if (!hash.empty() && hash != "N/A") s += " (commit " + hash + ")";
    return s;
}

std::string isa() {
    using dnnl::cpu_isa;
    switch (dnnl::get_effective_cpu_isa()) {
        case cpu_isa::sse41: return "sse41";
        case cpu_isa::avx: return "avx";
        case cpu_isa::avx2: return "avx2";
        case cpu_isa::avx2_vnni: return "avx2_vnni";
        case cpu_isa::avx2_vnni_2: return "avx2_vnni_2";
        case cpu_isa::avx512_core: return "avx512_core";
        case cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
        case cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
        case cpu_isa::avx512_core_fp16: return "avx512_core_fp16";
        case cpu_isa::avx512_core_amx: return "avx512_core_amx";
        case cpu_isa::avx512_core_amx_fp16: return "avx512_core_amx_fp16";
        case cpu_isa::isa_default: return "default";
    }
    return "unknown";
}

int num_threads() {
#if defined(CPUFRAME_HAVE_OPENMP)
    return omp_get_max_threads();
#else
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#endif
}

void set_num_threads(int n) {
    if (n < 1) {
        throw py::value_error("set_num_threads: expected n >= 1, got " + std::to_string(n));
    }
#if defined(CPUFRAME_HAVE_OPENMP)
    omp_set_num_threads(n);
#endif
}

py::dict primitive_cache_stats() {
    const cpuframe::PrimitiveCacheStats s = cpuframe::PrimitiveCache::global().stats();
    py::dict d;
    d["creations"] = s.creations;
    d["hits"] = s.hits;
    d["evictions"] = s.evictions;
    d["size"] = s.size;
    d["capacity"] = s.capacity;
    return d;
}

void set_primitive_cache_capacity(py::ssize_t capacity) {
    if (capacity < 0) {
        throw py::value_error(
            "set_primitive_cache_capacity: expected a capacity >= 0, got " +
            std::to_string(capacity));
    }
    cpuframe::PrimitiveCache::global().set_capacity(static_cast<std::size_t>(capacity));
}

}  // namespace

PYBIND11_MODULE(_dnnl, m) {
    m.doc() = "cpuframe's oneDNN kernels (CPU). Load it through cpuframe._native.load().";

    m.def("onednn_version", &onednn_version,
          "The oneDNN library's version in use, as (major, minor, patch).");
    m.def("onednn_version_string", &onednn_version_string,
          "The oneDNN version with its commit, e.g. '3.2.0 (commit 04b180b...)'.");
    m.def("isa", &isa,
          "The instruction set oneDNN dispatches on, e.g. 'avx512_core_bf16' or 'avx2'.");
    m.def(
        "kernel_isa", [] { return std::string(cpuframe::kernel_isa_name(cpuframe::kernel_isa())); },
        "The ISA cpuframe's own kernels (LSTM gates, softmax cross entropy) run on: "
        "'avx512', 'avx2' or 'scalar'.");
    m.def(
        "kernel_isa_supported",
        [] { return std::string(cpuframe::kernel_isa_name(cpuframe::kernel_isa_supported())); },
        "The best ISA this build and this CPU support for cpuframe's own kernels.");
    m.def(
        "set_kernel_isa",
        [](const std::string& name) {
            cpuframe::KernelIsa isa;
            try {
                isa = cpuframe::parse_kernel_isa(name.c_str());
                cpuframe::set_kernel_isa(isa);
            } catch (const std::invalid_argument& e) {
                throw py::value_error(e.what());
            }
        },
        py::arg("isa"),
        "Selects the ISA of cpuframe's own kernels ('avx512', 'avx2' or 'scalar', at most "
        "kernel_isa_supported()); for tests and benchmarks. oneDNN's ISA is fixed at load "
        "(ONEDNN_MAX_CPU_ISA).");
    m.def("num_threads", &num_threads,
          "How many threads oneDNN's OpenMP pool runs (omp_get_max_threads).");

    m.def("set_num_threads", &set_num_threads, py::arg("n"),
          "omp_set_num_threads(n): the calling thread's OpenMP team size (GNU OpenMP "
          "keeps it per thread). No effect in a build without OpenMP.");

    m.def("primitive_cache_stats", &primitive_cache_stats,
          "Counters of the primitive cache as a dict: creations (misses), hits and "
          "evictions since the process started, and the current size and capacity.");
    m.def(
        "clear_primitive_cache", [] { cpuframe::PrimitiveCache::global().clear(); },
        "Drops every cached primitive; the counters keep counting.");
    m.def("set_primitive_cache_capacity", &set_primitive_cache_capacity, py::arg("capacity"),
          "Sets how many primitives the cache keeps (0 disables caching); shrinking "
          "evicts the least recently used.");
    // Without CPUFRAME_PRIMITIVE_CACHE_CAPACITY, the cache's capacity.
    m.attr("default_primitive_cache_capacity") = cpuframe::PrimitiveCache::default_capacity;

    cpuframe::register_tensor(m);
    cpuframe::register_deferred(m);
    cpuframe::register_eltwise(m);
    cpuframe::register_convolution(m);
    cpuframe::register_inner_product(m);
    cpuframe::register_sum(m);
    cpuframe::register_pooling(m);
    cpuframe::register_batch_normalization(m);
    cpuframe::register_lrn(m);
    cpuframe::register_concat(m);
    cpuframe::register_activation(m);
    cpuframe::register_rnn(m);
    cpuframe::register_lstm_cell(m);
    cpuframe::register_softmax_xent(m);
    cpuframe::register_optimizer(m);
}
