// The pool of Tensor buffers (Tensor::empty allocates from it; so do the
// scratchpads of execute_here and the RNN workspaces, through pooled_buffer).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace cpuframe {

// Freed Tensor buffers of 128 KiB and more, kept by size for the next Tensor
// of that size (a training step allocates the same sizes every iteration):
// fresh large buffers cost a page fault per page on first touch, which on
// this kind of machine is as slow as the memory-bound kernels themselves.
// Thread-safe; bounded by a byte limit (what does not fit is freed) and, for
// huge buffers (>= 4 MiB, most of a step's memory), by their high-water
// mark: huge buffers in use plus cached never exceed the most ever in use at
// once, so the pool does not raise the peak memory (cached huge buffers of
// other sizes are let go before a fresh one is mapped).
class BufferPool {
public:
    // glibc maps blocks from 128 KiB on (its default mmap threshold) and
    // unmaps them on free: pooling from there on keeps them resident.
    static constexpr std::size_t kPooledMin = std::size_t{1} << 17;  // 128 KiB
    static constexpr std::size_t kHugeMin = std::size_t{1} << 22;    // 4 MiB
    static constexpr std::size_t kHuge = std::size_t{1} << 21;       // 2 MiB pages
    static constexpr std::size_t kPage = 4096;
    static constexpr std::size_t kSlackDiv = 8;  // huge buffers reused up to 1/8 larger
    // Cached plus live huge buffers may exceed the most ever live by 1/4
    // before cached ones are evicted.
    static constexpr std::size_t kHeadroomDiv = 4;

    struct Stats {
        std::size_t cached_bytes, cached_buffers, limit_bytes;
        std::uint64_t hits, misses;
        std::size_t live_bytes, peak_live_bytes;  // Tensor buffers in use
        bool peak_bound;
    };

    // The allocation size for a request of `bytes` (the pool's size class).
    static std::size_t round(std::size_t bytes);
    // A new buffer of `rounded` bytes (suitably aligned), or nullptr.
    static void* fresh(std::size_t rounded);
    // Returns a buffer from fresh() to the system.
    static void dispose(void* p, std::size_t rounded);
    // A cached buffer of `rounded` bytes (or somewhat more: then `rounded`
    // is set to its size), or nullptr; on a miss for a huge buffer, cached
    // huge buffers are let go to keep the huge bytes in use plus cached
    // within their high-water mark.
    void* take(std::size_t& rounded);
    // Returns a buffer from fresh()/take(): cached when it fits, else freed.
    void give(void* p, std::size_t rounded);
    void set_limit(std::size_t bytes);
    void release();
    Stats stats();
    // Restarts the peak of live bytes from the bytes live now.
    void reset_peak();
    // On (default): huge buffers are reused up to 1/8 larger and bounded by
    // their high-water mark. Off: reused up to twice as large, never let go
    // (fewer fresh pages per step, a higher peak).
    void set_peak_bound(bool on);
    // Bookkeeping of the bytes held by live Tensor buffers (all sizes).
    void note_alloc(std::size_t rounded);
    void note_free(std::size_t rounded);

private:
    void trim_locked();
    // Lets go of cached huge buffers, the largest first, until `bytes` are
    // freed or none is cached.
    void evict_locked(std::size_t bytes);

    std::mutex mutex_;
    std::map<std::size_t, std::vector<void*>> free_;
    std::size_t cached_ = 0;
    // Bytes of huge buffers (>= kHugeMin) cached, in use, and the most ever
    // in use at once (the bound of in use plus cached).
    std::size_t cached_huge_ = 0, live_huge_ = 0, high_water_ = 0;
    bool bound_ = true;
    std::size_t limit_ = std::size_t{4} << 30;
    std::uint64_t hits_ = 0, misses_ = 0;
    std::atomic<std::size_t> live_{0}, peak_live_{0};
};
BufferPool& buffer_pool();
// A buffer of at least `bytes` (64-byte aligned) from buffer_pool(), given
// back to it when the last owner lets go; std::bad_alloc when none can be had.
std::shared_ptr<void> pooled_buffer(std::size_t bytes);

}  // namespace cpuframe
