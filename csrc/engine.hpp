// The CPU engine and streams every primitive in cpuframe._dnnl runs on.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace cpuframe {

// The process-wide CPU engine, created on first use.
const dnnl::engine& cpu_engine();

// The calling thread's stream on cpu_engine(). Each thread gets its own, since a
// oneDNN stream must not be used by two threads at once.
dnnl::stream& cpu_stream();

}  // namespace cpuframe
