#include "array_utils.hpp"

#include <cstdio>

#include <algorithm>

#include <oneapi/dnnl/dnnl_debug.h>

namespace cpuframe {

namespace {

std::string type_name(const py::handle& obj) {
    return py::str(py::type::handle_of(obj).attr("__name__"));
}

bool is_native_float32(const py::dtype& dt) {
    // PyArray_EquivTypes: also false for byte-swapped float32. (Reading the
    // descriptor's fields directly breaks on NumPy 2 with older pybind11.)
    return dt.equal(py::dtype::of<float>());
}

}  // namespace

py::array float32_c_array(const char* fn, const char* arg, const py::handle& obj) {
    if (!py::isinstance<py::array>(obj)) {
        throw py::type_error(std::string(fn) + ": expected " + arg +
                             " to be a float32 numpy.ndarray, got " + type_name(obj));
    }
    auto a = py::reinterpret_borrow<py::array>(obj);
    if (!is_native_float32(a.dtype())) {
        throw py::type_error(std::string(fn) + ": expected " + arg +
                             " to be a float32 array, got " + std::string(py::str(a.dtype())));
    }
    constexpr int wanted = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ |
                           py::detail::npy_api::NPY_ARRAY_ALIGNED_;
    if ((a.flags() & wanted) == wanted) return a;
    return a.attr("copy")("C").cast<py::array>();
}

std::string shape_str(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) {
        if (i) s += ", ";
        s += std::to_string(a.shape(i));
    }
    if (a.ndim() == 1) s += ",";
    return s + ")";
}

std::vector<py::ssize_t> shape_of(const py::array& a) {
    return std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim());
}

bool same_shape(const py::array& a, const py::array& b) {
    return a.ndim() == b.ndim() && std::equal(a.shape(), a.shape() + a.ndim(), b.shape());
}

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
