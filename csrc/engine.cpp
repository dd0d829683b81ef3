#include "engine.hpp"

namespace cpuframe {

const dnnl::engine& cpu_engine() {
    // Never destroyed: tearing oneDNN objects down during process exit can race
    // with the OpenMP runtime's own shutdown.
    static const dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
    return *engine;
}

dnnl::stream& cpu_stream() {
    thread_local dnnl::stream stream(cpu_engine());
    return stream;
}

dnnl::primitive_attr op_attr() {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return attr;
}

}  // namespace cpuframe
