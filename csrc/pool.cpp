// The pool of Tensor buffers: see pool.hpp.
#include "pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include <sys/mman.h>

namespace cpuframe {

// -- buffer pool ------------------------------------------------------------------

std::size_t BufferPool::round(std::size_t bytes) {
    bytes = std::max<std::size_t>(bytes, 1);
    const std::size_t unit = bytes >= kHugeMin ? kHuge : bytes >= kPooledMin ? kPage : 64;
    return (bytes + unit - 1) / unit * unit;
}

void* BufferPool::fresh(std::size_t rounded) {
    if (rounded < kPooledMin) return std::aligned_alloc(64, rounded);
    // Pooled sizes are mapped directly, so that a buffer the pool lets go of
    // is returned to the system at once (glibc would keep freed blocks below
    // its mmap threshold in the heap, out of the pool's reach: peak memory).
    const std::size_t align = rounded >= kHugeMin ? kHuge : kPage;
    const std::size_t len = rounded + (align > kPage ? align : 0);
    void* raw = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto base = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t start = (base + align - 1) / align * align;
    const std::size_t head = start - base, tail = len - head - rounded;
    if (head) munmap(raw, head);
    if (tail) munmap(reinterpret_cast<void*>(start + rounded), tail);
    void* p = reinterpret_cast<void*>(start);
    // 2 MiB aligned and advised as huge pages: one fault per 2 MiB on first
    // touch instead of 512, and fewer TLB misses in the kernels.
    if (align == kHuge) madvise(p, rounded, MADV_HUGEPAGE);
    return p;
}

void BufferPool::dispose(void* p, std::size_t rounded) {
    if (rounded < kPooledMin) {
        std::free(p);
    } else {
        munmap(p, rounded);
    }
}

void* BufferPool::take(std::size_t& rounded) {
    if (rounded < kPooledMin) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    const bool huge = rounded >= kHugeMin;
    // The exact size, else the smallest cached buffer up to twice as large
    // (its pages are resident already: no page faults), or for huge buffers
    // up to 1/8 larger (the excess of a much larger one is wasted while in
    // use, and adds up to a higher peak when many are in use at once).
    auto it = free_.lower_bound(rounded);
    while (it != free_.end() && it->second.empty()) ++it;
    const std::size_t slack = huge && bound_ ? rounded / kSlackDiv : rounded;
    if (it == free_.end() || it->first > rounded + slack) {
        ++misses_;
        // A fresh huge buffer comes next. Cached huge buffers give way
        // (largest first) so that the huge bytes in use plus cached stay
        // within the most ever in use at once: those buffers are most of
        // the memory of a training step, and the pool must not raise its
        // peak. (Smaller ones are cached freely: re-faulting them page by
        // page each step would cost more time than they take memory.)
        const std::size_t after = live_huge_ + cached_huge_ + rounded;
        const std::size_t allowed = high_water_ + high_water_ / kHeadroomDiv;
        if (huge && bound_ && after > allowed) evict_locked(after - allowed);
        return nullptr;
    }
    void* p = it->second.back();
    it->second.pop_back();
    rounded = it->first;
    cached_ -= rounded;
    if (rounded >= kHugeMin) cached_huge_ -= rounded;
    ++hits_;
    return p;
}

void BufferPool::give(void* p, std::size_t rounded) {
    if (rounded >= kPooledMin) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (cached_ + rounded <= limit_) {
            free_[rounded].push_back(p);
            cached_ += rounded;
            if (rounded >= kHugeMin) cached_huge_ += rounded;
            return;
        }
    }
    dispose(p, rounded);
}

void BufferPool::set_limit(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    limit_ = bytes;
    trim_locked();
}

void BufferPool::release() {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t keep = limit_;
    limit_ = 0;
    trim_locked();
    limit_ = keep;
    high_water_ = live_huge_;
}

void BufferPool::trim_locked() {
    // Largest buffers first: they free the most with the fewest calls.
    for (auto it = free_.rbegin(); it != free_.rend() && cached_ > limit_; ++it) {
        while (!it->second.empty() && cached_ > limit_) {
            dispose(it->second.back(), it->first);
            it->second.pop_back();
            cached_ -= it->first;
            if (it->first >= kHugeMin) cached_huge_ -= it->first;
        }
    }
}

void BufferPool::evict_locked(std::size_t bytes) {
    std::size_t freed = 0;
    while (freed < bytes && cached_huge_ > 0) {
        // The largest first: of the orders tried (least recently given back,
        // best fit, largest) it maps the fewest fresh pages per training step.
        auto victim = free_.end();
        for (auto it = free_.lower_bound(kHugeMin); it != free_.end(); ++it) {
            if (!it->second.empty()) victim = it;
        }
        if (victim == free_.end()) break;
        dispose(victim->second.back(), victim->first);
        victim->second.pop_back();
        cached_ -= victim->first;
        cached_huge_ -= victim->first;
        freed += victim->first;
    }
}

BufferPool::Stats BufferPool::stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t buffers = 0;
    for (const auto& kv : free_) buffers += kv.second.size();
    return {cached_, buffers, limit_, hits_, misses_, live_.load(), peak_live_.load(), bound_};
}

void BufferPool::reset_peak() { peak_live_.store(live_.load()); }

void BufferPool::set_peak_bound(bool on) {
    std::lock_guard<std::mutex> lock(mutex_);
    bound_ = on;
    high_water_ = std::max(high_water_, live_huge_ + cached_huge_);
}

void BufferPool::note_alloc(std::size_t rounded) {
    const std::size_t now = live_.fetch_add(rounded) + rounded;
    std::size_t peak = peak_live_.load();
    while (now > peak && !peak_live_.compare_exchange_weak(peak, now)) {
    }
    if (rounded >= kHugeMin) {
        std::lock_guard<std::mutex> lock(mutex_);
        live_huge_ += rounded;
        high_water_ = std::max(high_water_, live_huge_);
    }
}

void BufferPool::note_free(std::size_t rounded) {
    live_.fetch_sub(rounded);
    if (rounded >= kHugeMin) {
        std::lock_guard<std::mutex> lock(mutex_);
        live_huge_ -= rounded;
    }
}

BufferPool& buffer_pool() {
    // Never destroyed: Tensors released at interpreter exit still return
    // their buffers here.
    static BufferPool* pool = [] {
        auto* p = new BufferPool();
        if (const char* env = std::getenv("CPUFRAME_TENSOR_POOL_MB")) {
            char* end = nullptr;
            const unsigned long long mb = std::strtoull(env, &end, 10);
            if (end != env) p->set_limit(static_cast<std::size_t>(mb) << 20);
        }
        if (const char* env = std::getenv("CPUFRAME_TENSOR_POOL_BOUND")) {
            p->set_peak_bound(std::string(env) != "0");
        }
        return p;
    }();
    return *pool;
}

std::shared_ptr<void> pooled_buffer(std::size_t bytes) {
    BufferPool& pool = buffer_pool();
    std::size_t rounded = BufferPool::round(bytes);
    void* p = pool.take(rounded);  // may hand out a larger buffer (rounded updated)
    if (!p) {
        p = BufferPool::fresh(rounded);
        if (!p) throw std::bad_alloc();
    }
    pool.note_alloc(rounded);
    return std::shared_ptr<void>(p, [rounded](void* q) {
        BufferPool& owner = buffer_pool();
        owner.note_free(rounded);
        owner.give(q, rounded);
    });
}

}  // namespace cpuframe
