#include "model/StringPool.h"

namespace stepscope {

namespace {
uint64_t hashBytes(std::string_view s) {
    // FNV-1a, then a final mix so that the low bits used for slots are well spread.
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}
} // namespace

StringPool::StringPool()
    : offsets_{0}
    , slots_(1024, 0) {
    intern("");
}

size_t StringPool::slotOf(std::string_view s, uint64_t hash) const {
    const size_t mask = slots_.size() - 1;
    size_t i = hash & mask;
    const uint32_t h32 = static_cast<uint32_t>(hash);
    while (slots_[i] != 0) {
        const uint32_t id = slots_[i] - 1;
        if (hashes_[id] == h32 && get(id) == s) return i;
        i = (i + 1) & mask;
    }
    return i;
}

StringId StringPool::find(std::string_view s) const {
    const size_t i = slotOf(s, hashBytes(s));
    return slots_[i] == 0 ? kNotFound : slots_[i] - 1;
}

StringId StringPool::intern(std::string_view s) {
    const uint64_t hash = hashBytes(s);
    size_t i = slotOf(s, hash);
    if (slots_[i] != 0) return slots_[i] - 1;
    const StringId id = static_cast<StringId>(size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    offsets_.push_back(bytes_.size());
    hashes_.push_back(static_cast<uint32_t>(hash));
    slots_[i] = id + 1;
    if (size() * 2 > slots_.size()) grow();
    return id;
}

void StringPool::grow() {
    std::vector<uint32_t> old(slots_.size() * 2, 0);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (uint32_t slot : old) {
        if (slot == 0) continue;
        const std::string_view s = get(slot - 1);
        size_t i = hashBytes(s) & mask;
        while (slots_[i] != 0) i = (i + 1) & mask;
        slots_[i] = slot;
    }
}

size_t StringPool::memoryBytes() const {
    return bytes_.capacity() + offsets_.capacity() * sizeof(uint64_t) +
           slots_.capacity() * sizeof(uint32_t) + hashes_.capacity() * sizeof(uint32_t);
}

} // namespace stepscope
