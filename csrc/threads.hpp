// Thread control for code that runs its own parallel streams (the RNN layers
// and LSTM steps): the OpenMP team size of the calling thread, a scoped limit
// on it, and run_concurrently.
#pragma once

#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

#include <pybind11/pybind11.h>

namespace cpuframe {

// The calling thread's OpenMP team size (1 without OpenMP).
int max_threads();
// Sets the calling thread's OpenMP team size (nothing without OpenMP).
void set_threads(int n);

// Limits this thread's OpenMP team for a scope. Small recurrences run on one
// thread: a step of a few thousand multiply-adds gains nothing from a team,
// and each of its barriers costs a scheduler time slice whenever another
// process holds a core.
class ThreadLimit {
public:
    explicit ThreadLimit(int n) : saved_(max_threads()) {
        if (n < saved_) set_threads(n);
    }
    ~ThreadLimit() { set_threads(saved_); }
    ThreadLimit(const ThreadLimit&) = delete;
    ThreadLimit& operator=(const ThreadLimit&) = delete;

private:
    int saved_;
};

// -- running the directions of a layer side by side ------------------------------
//
// The two directions of a bidirectional layer are independent, so they run at
// the same time, each on its own thread with half of the OpenMP threads (one
// each on two cores). A recurrence parallelizes poorly inside a step (small
// GEMMs, a barrier per step); two sequential recurrences side by side keep
// both cores busy. Each worker runs oneDNN on its own stream and creates its
// primitives itself, with its own thread count in the key.

// Runs body(i) for i in [0, n) concurrently, a share of the threads each (one
// after the other when there are fewer threads than bodies), the GIL
// released.
template <class Body>
void run_concurrently(std::size_t n, Body&& body) {
    pybind11::gil_scoped_release release;
    const int total = max_threads();
    if (n < 2 || total < static_cast<int>(n)) {
        for (std::size_t i = 0; i < n; ++i) body(i, total);
        return;
    }
    const int share = total / static_cast<int>(n);
    std::vector<std::exception_ptr> errors(n);
    std::vector<std::thread> workers;
    for (std::size_t i = 1; i < n; ++i) {
        workers.emplace_back([&, i] {
            try {
                set_threads(share);
                body(i, share);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        });
    }
    const int mine = total - share * static_cast<int>(n - 1);
    set_threads(mine);
    try {
        body(0, mine);
    } catch (...) {
        errors[0] = std::current_exception();
    }
    set_threads(total);
    for (std::thread& w : workers) w.join();
    for (const std::exception_ptr& e : errors) {
        if (e) std::rethrow_exception(e);
    }
}

}  // namespace cpuframe
