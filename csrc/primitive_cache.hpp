// A bounded, thread-safe LRU cache of oneDNN primitives.
//
// Creating a primitive (descriptor creation plus JIT code generation) costs far
// more than running it on small inputs, so every op builds a PrimitiveKey from
// everything the primitive depends on and creates the primitive only on a miss.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <oneapi/dnnl/dnnl.hpp>

namespace cpuframe {

// Identifies a primitive: op name, shapes, data types, layouts and attributes,
// written as readable text ("eltwise_forward|alg=eltwise_relu|dt=f32|...").
class PrimitiveKey {
public:
    explicit PrimitiveKey(std::string_view op);

    PrimitiveKey& prop(dnnl::prop_kind kind);
    PrimitiveKey& algorithm(dnnl::algorithm alg);
    PrimitiveKey& dtype(dnnl::memory::data_type dt);
    PrimitiveKey& layout(dnnl::memory::format_tag tag);
    PrimitiveKey& shape(const dnnl::memory::dims& dims);
    // Floats are written exactly (hex float), so 0.1f and 0.1000001f differ.
    PrimitiveKey& scalar(std::string_view name, float value);
    PrimitiveKey& option(std::string_view name, std::int64_t value);
    // Any other text, e.g. a memory descriptor's desc_key().
    PrimitiveKey& text(std::string_view name, std::string_view value) {
        return field(name, value);
    }

    const std::string& str() const { return text_; }

private:
    PrimitiveKey& field(std::string_view name, std::string_view value);
    std::string text_;
};

struct PrimitiveCacheStats {
    std::size_t creations = 0;  // primitives created (cache misses)
    std::size_t hits = 0;
    std::size_t evictions = 0;
    std::size_t size = 0;
    std::size_t capacity = 0;
};

class PrimitiveCache {
public:
    // Enough for a convnet trained with every batch size from 1 to 64 (a
    // small one needs ~21 primitives per size): with fewer, varying batch
    // sizes evict and re-create (JIT) primitives every iteration. A primitive
    // holds its generated code, not its scratchpad (op_attr), so the bound
    // costs little memory. CPUFRAME_PRIMITIVE_CACHE_CAPACITY overrides it.
    static constexpr std::size_t default_capacity = 4096;

    explicit PrimitiveCache(std::size_t capacity = default_capacity)
        : capacity_(capacity), caching_(capacity > 0) {}

    // The cache shared by every op in the module.
    static PrimitiveCache& global();

    // Returns the primitive cached under key, creating it with make() on a miss.
    // make() runs without the lock held: primitive creation may JIT for tens of
    // milliseconds, and other threads must not wait on that.
    template <class Make>
    dnnl::primitive get_or_create(const PrimitiveKey& key, Make&& make) {
        if (auto hit = lookup(key.str())) return *hit;
        return insert(key.str(), std::forward<Make>(make)());
    }

    // Like get_or_create for an optional primitive (e.g. a fused variant):
    // when make() throws dnnl::error, an empty primitive is cached under key
    // and returned, so the attempt is not repeated on every call.
    template <class Make>
    dnnl::primitive get_or_none(const PrimitiveKey& key, Make&& make) {
        if (auto hit = lookup(key.str())) return *hit;
        dnnl::primitive made;
        try {
            made = std::forward<Make>(make)();
        } catch (const dnnl::error&) {
            made = dnnl::primitive();
        }
        return insert(key.str(), made);
    }

    void clear();
    // Capacity 0 disables caching; shrinking evicts least recently used entries.
    void set_capacity(std::size_t capacity);
    // Counts clear() and set_capacity() calls: a kernel that keeps a few
    // primitives of its own per thread (lstm_cell.cpp's eltwise) lets them
    // go when it changes, and keeps none while caching() is off.
    std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
    bool caching() const { return caching_.load(std::memory_order_acquire); }
    PrimitiveCacheStats stats() const;

private:
    using Entry = std::pair<std::string, dnnl::primitive>;

    std::optional<dnnl::primitive> lookup(const std::string& key);
    dnnl::primitive insert(const std::string& key, dnnl::primitive primitive);
    void evict_down_to(std::size_t size);  // caller holds mutex_

    mutable std::mutex mutex_;
    std::size_t capacity_;
    std::list<Entry> entries_;  // most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> index_;
    std::size_t creations_ = 0;
    std::size_t hits_ = 0;
    std::size_t evictions_ = 0;
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<bool> caching_{true};  // capacity_ > 0
};

}  // namespace cpuframe
