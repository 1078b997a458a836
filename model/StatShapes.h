#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace stepscope {

// Interns the shapes of event stat lists (StatList.h): each distinct sequence of tags gets a
// number, in the order first seen, 0 being the empty one. Events of one kind repeat a shape, so a
// lookup first tries the shape last seen with the same hash and only then the table.
class StatShapes {
public:
    StatShapes() = default;
    // The number of `tags` (a list's tags in order), adding it if new.
    uint32_t intern(std::span<const uint32_t> tags);
    size_t size() const { return begin_.size() - 1; }
    std::span<const uint32_t> tags(uint32_t shape) const {
        return {tags_.data() + begin_[shape], begin_[shape + 1] - begin_[shape]};
    }
    // The table as a profile keeps it: shape s is tags[begin[s], begin[s + 1]). The interner is
    // spent afterwards.
    void release(std::vector<uint32_t>& begin, std::vector<uint32_t>& tags);

private:
    static uint64_t hash(std::span<const uint32_t> tags);
    bool holds(uint32_t shape, std::span<const uint32_t> tags) const {
        const uint32_t* t = tags_.data() + begin_[shape];
        if (begin_[shape + 1] - begin_[shape] != tags.size()) return false;
        for (size_t i = 0; i < tags.size(); ++i) // short: no call to memcmp
            if (t[i] != tags[i]) return false;
        return true;
    }
    uint32_t find(std::span<const uint32_t> tags, uint64_t h) const;

    std::vector<uint32_t> begin_{0, 0};
    std::vector<uint32_t> tags_;
    std::unordered_map<uint64_t, uint32_t> firstWithHash_;
    std::vector<uint32_t> nextWithHash_{0}; // per shape: the next one of its hash, or 0
    std::array<uint32_t, 64> recent_{};     // by hash: the shape last found, or 0
};

} // namespace stepscope
