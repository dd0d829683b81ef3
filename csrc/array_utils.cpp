#include "array_utils.hpp"

#include <cstdio>

#include <oneapi/dnnl/dnnl_debug.h>

namespace cpuframe {

std::string bytes_str(std::size_t bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        ++u;
    }
    char buf[64];
    if (u == 0) {
        std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
    } else {
        std::snprintf(buf, sizeof buf, "%.1f %s (%zu bytes)", v, units[u], bytes);
    }
    return buf;
}

std::string describe_dnnl_error(const char* fn, const std::string& what, const dnnl::error& e) {
    return std::string(fn) + ": oneDNN failed for " + what + ": " + e.what() + " (" +
           dnnl_status2str(e.status) + ")";
}

}  // namespace cpuframe
