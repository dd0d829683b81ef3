// The CPU engine and streams every primitive in cpuframe._dnnl runs on.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace cpuframe {

// The process-wide CPU engine, created on first use.
const dnnl::engine& cpu_engine();

// The calling thread's stream on cpu_engine(). Each thread gets its own, since a
// oneDNN stream must not be used by two threads at once.
dnnl::stream& cpu_stream();

// The attributes every primitive that runs is created with: a user-managed
// scratchpad, so that each call brings scratch memory of its own (execute()
// in tensor.hpp allocates it). With oneDNN's library-managed scratchpad, a
// cached primitive run by two threads at once shares one scratchpad, which
// gives wrong results and hangs (barriers kept in it); execute() refuses a
// primitive created without these attributes.
dnnl::primitive_attr op_attr();

}  // namespace cpuframe
