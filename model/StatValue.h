#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "model/StringPool.h"

namespace stepscope {

// How an XStat's 8-byte value is to be read. Str, Bytes and Ref hold a StringId; a Ref has been
// resolved at load to the name of the XStatMetadata it pointed at.
enum class StatType : uint8_t { Int64, Uint64, Double, Str, Bytes, Ref };

// Packed to 13 bytes: stats are the largest column of a profile. `raw` is therefore misaligned:
// assign and read it by value (the compiler emits unaligned accesses for a packed member), never
// bind it to a reference or pointer (std::bit_cast, std::max, QCOMPARE take references); use
// rawBits() wherever a reference could be taken.
struct [[gnu::packed]] StatValue {
    StringId key = 0; // the stat's name, interned
    StatType type = StatType::Int64;
    uint64_t raw = 0;

    // The 8 bytes of `raw`, copied out with memcpy so no misaligned uint64_t is ever formed.
    uint64_t rawBits() const {
        uint64_t v;
        std::memcpy(&v, reinterpret_cast<const unsigned char*>(this) + offsetof(StatValue, raw),
                    sizeof v);
        return v;
    }

    bool isText() const {
        return type == StatType::Str || type == StatType::Bytes || type == StatType::Ref;
    }
    bool isNumber() const { return !isText(); }
    int64_t asInt() const {
        if (type == StatType::Double) return static_cast<int64_t>(std::bit_cast<double>(rawBits()));
        return static_cast<int64_t>(rawBits());
    }
    double asDouble() const {
        switch (type) {
        case StatType::Double:
            return std::bit_cast<double>(rawBits());
        case StatType::Uint64:
            return static_cast<double>(rawBits());
        default:
            return static_cast<double>(static_cast<int64_t>(rawBits()));
        }
    }
    StringId asString() const { return static_cast<StringId>(rawBits()); }
    // The value as a user reads it: numbers in full, text as is, bytes as a size.
    std::string format(const StringPool& strings) const;
};

} // namespace stepscope
