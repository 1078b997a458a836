#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/ProfileBuilder.h"
#include "model/kineto/KinetoEvent.h"

// The Kineto importer's strings: stat keys by an arg's name (with the role the name gives it)
// and interned texts, each behind a direct-mapped cache, since names, categories and arg keys
// repeat event after event and the pool's hash reads every byte.
namespace stepscope::kineto {

struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

// Whether n bytes at a and b are equal: inline for the short keys and names that repeat event
// after event (a call to memcmp costs more than the compare).
bool sameBytes(const char* a, const char* b, size_t n);

class KinetoStrings {
public:
    explicit KinetoStrings(ProfileBuilder& b)
        : b_(b) {}

    // The stat key of an arg named `raw` as written, and its role; `unescape`, where the name
    // has escapes, gives the name unescaped (it is called only then).
    template <class Unescape> uint32_t key(std::string_view raw, Role* role, Unescape&& unescape) {
        const KeySlot* slot = cachedKey(raw);
        if (slot) {
            *role = slot->role;
            return slot->key;
        }
        std::string unescaped;
        if (raw.find('\\') != std::string_view::npos) unescaped = unescape();
        return newKey(raw, unescaped.empty() ? raw : std::string_view(unescaped), role);
    }
    uint32_t key(std::string_view text, Role* role) {
        return key(text, role, [] { return std::string(); });
    }
    StringId intern(std::string_view text);

private:
    struct KeySlot {
        char text[38];
        uint8_t size = 0xFF; // more than text holds: an empty slot
        Role role = Role::Plain;
        uint32_t key = 0;
    };
    static constexpr size_t kKeyCacheSize = 256;
    KeySlot& slotOf(std::string_view raw);
    const KeySlot* cachedKey(std::string_view raw) {
        KeySlot& slot = slotOf(raw);
        const size_t n = raw.size();
        return n <= sizeof slot.text && slot.size == n && sameBytes(slot.text, raw.data(), n)
                   ? &slot
                   : nullptr;
    }
    uint32_t newKey(std::string_view raw, std::string_view text, Role* role);

    ProfileBuilder& b_;
    std::unordered_map<std::string, std::pair<uint32_t, Role>, StringHash, std::equal_to<>> keys_;
    // A key's text is kept in its slot: no pointer to follow on the hot path.
    std::array<KeySlot, kKeyCacheSize> keyCache_{};
    struct TextSlot {
        StringId id = 0;
        uint32_t size = 0xFFFFFFFFu; // no text has this size: an empty slot
    };
    static constexpr size_t kTextCacheSize = 4096;
    std::vector<TextSlot> textCache_ = std::vector<TextSlot>(kTextCacheSize);
};

} // namespace stepscope::kineto
