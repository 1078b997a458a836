#include "model/StatShapes.h"

namespace stepscope {

uint64_t StatShapes::hash(std::span<const uint32_t> tags) {
    uint64_t h = tags.size();
    for (const uint32_t t : tags) {
        h = (h ^ t) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    return h;
}

uint32_t StatShapes::find(std::span<const uint32_t> tags, uint64_t h) const {
    const auto it = firstWithHash_.find(h);
    if (it == firstWithHash_.end()) return 0;
    for (uint32_t s = it->second; s != 0; s = nextWithHash_[s])
        if (holds(s, tags)) return s;
    return 0;
}

uint32_t StatShapes::intern(std::span<const uint32_t> tags) {
    if (tags.empty()) return 0;
    const uint64_t h = hash(tags);
    uint32_t& recent = recent_[h % recent_.size()];
    if (recent != 0 && holds(recent, tags)) return recent;
    uint32_t s = find(tags, h);
    if (s == 0) {
        s = uint32_t(size());
        tags_.insert(tags_.end(), tags.begin(), tags.end());
        begin_.push_back(uint32_t(tags_.size()));
        const auto [it, added] = firstWithHash_.try_emplace(h, s);
        nextWithHash_.push_back(added ? 0 : it->second);
        it->second = s;
    }
    recent = s;
    return s;
}

void StatShapes::release(std::vector<uint32_t>& begin, std::vector<uint32_t>& tags) {
    begin = std::move(begin_);
    tags = std::move(tags_);
    begin.shrink_to_fit();
    tags.shrink_to_fit();
    *this = StatShapes();
}

} // namespace stepscope
