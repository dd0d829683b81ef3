// Error glue shared by the op files: the messages of the Python exceptions
// users see, and the guard that turns oneDNN errors into them.
#pragma once

#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace cpuframe {

namespace py = pybind11;

std::string describe_dnnl_error(const char* fn, const std::string& what, const dnnl::error& e);

// A failed allocation, with a message: pybind11 raises a std::bad_alloc as
// MemoryError(what()), so this one says which buffer of how many bytes.
class OutOfMemory : public std::bad_alloc {
public:
    explicit OutOfMemory(std::string message) : message_(std::move(message)) {}
    const char* what() const noexcept override { return message_.c_str(); }

private:
    std::string message_;
};

// "1.5 GiB (1610612736 bytes)".
std::string bytes_str(std::size_t bytes);

// Runs body(); a dnnl::error thrown inside becomes RuntimeError("<fn>: oneDNN
// failed for <what()>: <message> (<status>)"), and a failed allocation
// MemoryError("<fn>: out of memory for <what()>: <which bytes>"), so no
// failure reaches the interpreter as anything but a Python exception that
// names the op. what() (e.g. the shapes) is only built on failure.
template <class What, class Body>
decltype(auto) guard_dnnl(const char* fn, What&& what, Body&& body) {
    try {
        return std::forward<Body>(body)();
    } catch (const dnnl::error& e) {
        throw std::runtime_error(describe_dnnl_error(fn, what(), e));
    } catch (const OutOfMemory& e) {
        throw OutOfMemory(std::string(fn) + ": out of memory for " + what() + ": " + e.what());
    } catch (const std::bad_alloc&) {
        throw OutOfMemory(std::string(fn) + ": out of memory for " + what());
    }
}

}  // namespace cpuframe
