#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace stepscope {

using StringId = uint32_t;

// Interns strings once; everything else refers to them by 32-bit id. Id 0 is the empty string.
// Storage is one byte arena plus an offset column, so a pool of millions of strings costs
// about its text plus 12 bytes per distinct string.
class StringPool {
public:
    StringPool();

    StringId intern(std::string_view s);
    // The id of s if it was interned, otherwise kNotFound. Never adds.
    StringId find(std::string_view s) const;
    std::string_view get(StringId id) const {
        return {bytes_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]};
    }
    size_t size() const { return offsets_.size() - 1; }
    size_t memoryBytes() const;

    static constexpr StringId kNotFound = 0xFFFFFFFFu;

private:
    friend class ProfileCache; // writes and reads every column
    void grow();
    size_t slotOf(std::string_view s, uint64_t hash) const;

    std::vector<char> bytes_;
    std::vector<uint64_t> offsets_; // size() + 1 entries
    std::vector<uint32_t> slots_;   // open addressing; 0 = empty, otherwise id + 1
    std::vector<uint32_t> hashes_;  // low 32 bits of each id's hash, to skip most compares
};

} // namespace stepscope
