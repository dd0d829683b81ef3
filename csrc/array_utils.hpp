// NumPy <-> oneDNN glue shared by the op files: argument checks that raise the
// Python exceptions users see, and the guard that turns oneDNN errors into them.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace cpuframe {

namespace py = pybind11;

// Returns obj as a C-contiguous, aligned float32 array: the same array when it
// already is one (zero copy), a C-ordered copy when only its layout is off.
// Raises TypeError naming fn and arg for anything that is not a float32 ndarray.
py::array float32_c_array(const char* fn, const char* arg, const py::handle& obj);

// "(2, 3)", as NumPy prints shapes.
std::string shape_str(const py::array& a);

std::vector<py::ssize_t> shape_of(const py::array& a);

bool same_shape(const py::array& a, const py::array& b);

std::string describe_dnnl_error(const char* fn, const std::string& what, const dnnl::error& e);

// Runs body(); a dnnl::error thrown inside becomes RuntimeError("<fn>: oneDNN
// failed for <what()>: <message> (<status>)"), so no oneDNN failure reaches the
// interpreter as anything but a Python exception. what() (e.g. the shapes) is
// only built on failure.
template <class What, class Body>
decltype(auto) guard_dnnl(const char* fn, What&& what, Body&& body) {
    try {
        return std::forward<Body>(body)();
    } catch (const dnnl::error& e) {
        throw std::runtime_error(describe_dnnl_error(fn, what(), e));
    }
}

}  // namespace cpuframe
