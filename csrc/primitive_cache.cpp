#include "primitive_cache.hpp"

#include <cstdio>
#include <cstdlib>

#include <oneapi/dnnl/dnnl_debug.h>

namespace cpuframe {

PrimitiveKey::PrimitiveKey(std::string_view op) : text_(op) {}

PrimitiveKey& PrimitiveKey::field(std::string_view name, std::string_view value) {
    text_.append("|").append(name).append("=").append(value);
    return *this;
}

PrimitiveKey& PrimitiveKey::prop(dnnl::prop_kind kind) {
    return field("prop", dnnl_prop_kind2str(dnnl::convert_to_c(kind)));
}

PrimitiveKey& PrimitiveKey::algorithm(dnnl::algorithm alg) {
    return field("alg", dnnl_alg_kind2str(dnnl::convert_to_c(alg)));
}

PrimitiveKey& PrimitiveKey::dtype(dnnl::memory::data_type dt) {
    return field("dt", dnnl_dt2str(dnnl::memory::convert_to_c(dt)));
}

PrimitiveKey& PrimitiveKey::layout(dnnl::memory::format_tag tag) {
    return field("tag", dnnl_fmt_tag2str(dnnl::memory::convert_to_c(tag)));
}

PrimitiveKey& PrimitiveKey::shape(const dnnl::memory::dims& dims) {
    std::string text;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i) text += 'x';
        text += std::to_string(dims[i]);
    }
    return field("shape", text);
}

PrimitiveKey& PrimitiveKey::scalar(std::string_view name, float value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%a", static_cast<double>(value));
    return field(name, buf);
}

PrimitiveKey& PrimitiveKey::option(std::string_view name, std::int64_t value) {
    return field(name, std::to_string(value));
}

PrimitiveCache& PrimitiveCache::global() {
    // Never destroyed, like the engine: see engine.cpp.
    static PrimitiveCache* cache = [] {
        std::size_t capacity = default_capacity;
        if (const char* env = std::getenv("CPUFRAME_PRIMITIVE_CACHE_CAPACITY")) {
            char* end = nullptr;
            const unsigned long long n = std::strtoull(env, &end, 10);
            if (end != env && *end == '\0') capacity = static_cast<std::size_t>(n);
        }
        return new PrimitiveCache(capacity);
    }();
    return *cache;
}

std::optional<dnnl::primitive> PrimitiveCache::lookup(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    entries_.splice(entries_.begin(), entries_, it->second);
    ++hits_;
    return it->second->second;
}

dnnl::primitive PrimitiveCache::insert(const std::string& key, dnnl::primitive primitive) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++creations_;
    auto it = index_.find(key);
    if (it != index_.end()) {
        // Another thread created the same primitive meanwhile; keep the cached one.
        entries_.splice(entries_.begin(), entries_, it->second);
        return it->second->second;
    }
    if (capacity_ == 0) return primitive;
    entries_.emplace_front(key, primitive);
    index_.emplace(key, entries_.begin());
    evict_down_to(capacity_);
    return primitive;
}

void PrimitiveCache::evict_down_to(std::size_t size) {
    while (entries_.size() > size) {
        index_.erase(entries_.back().first);
        entries_.pop_back();
        ++evictions_;
    }
}

void PrimitiveCache::clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    index_.clear();
    entries_.clear();
    generation_.fetch_add(1, std::memory_order_acq_rel);
}

void PrimitiveCache::set_capacity(std::size_t capacity) {
    std::lock_guard<std::mutex> lock(mutex_);
    capacity_ = capacity;
    evict_down_to(capacity_);
    caching_.store(capacity_ > 0, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
}

PrimitiveCacheStats PrimitiveCache::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    PrimitiveCacheStats s;
    s.creations = creations_;
    s.hits = hits_;
    s.evictions = evictions_;
    s.size = entries_.size();
    s.capacity = capacity_;
    return s;
}

}  // namespace cpuframe
