#pragma once

#include <bit>
#include <cstdint>
#include <string>

#include "model/StringPool.h"

namespace stepscope {

// How an XStat's 8-byte value is to be read. Str, Bytes and Ref hold a StringId; a Ref has been
// resolved at load to the name of the XStatMetadata it pointed at.
enum class StatType : uint8_t { Int64, Uint64, Double, Str, Bytes, Ref };

// Packed to 13 bytes: stats are the largest column of a profile.
struct [[gnu::packed]] StatValue {
    StringId key = 0; // the stat's name, interned
    StatType type = StatType::Int64;
    uint64_t raw = 0;

    bool isText() const {
        return type == StatType::Str || type == StatType::Bytes || type == StatType::Ref;
    }
    bool isNumber() const { return !isText(); }
    int64_t asInt() const {
        if (type == StatType::Double) return static_cast<int64_t>(std::bit_cast<double>(raw));
        return static_cast<int64_t>(raw);
    }
    double asDouble() const {
        switch (type) {
        case StatType::Double:
            return std::bit_cast<double>(raw);
        case StatType::Uint64:
            return static_cast<double>(raw);
        default:
            return static_cast<double>(static_cast<int64_t>(raw));
        }
    }
    StringId asString() const { return static_cast<StringId>(raw); }
    // The value as a user reads it: numbers in full, text as is, bytes as a size.
    std::string format(const StringPool& strings) const;
};

} // namespace stepscope
