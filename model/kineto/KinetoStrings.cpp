#include "model/kineto/KinetoStrings.h"

#include <algorithm>
#include <cstring>

namespace stepscope::kineto {

bool sameBytes(const char* a, const char* b, size_t n) {
    auto load8 = [](const char* p) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        return v;
    };
    auto load4 = [](const char* p) {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
    };
    if (n > 32) return std::memcmp(a, b, n) == 0;
    if (n > 16)
        return load8(a) == load8(b) && load8(a + 8) == load8(b + 8) &&
               load8(a + n - 16) == load8(b + n - 16) && load8(a + n - 8) == load8(b + n - 8);
    if (n >= 8) return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
    if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
    for (size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

KinetoStrings::KeySlot& KinetoStrings::slotOf(std::string_view name) {
    const size_t n = name.size();
    const size_t h =
        n == 0
            ? 0
            : (n * 131 + uint8_t(name[0]) * 31 + uint8_t(name[n / 2]) * 7 + uint8_t(name[n - 1])) &
                  (kKeyCacheSize - 1);
    return keyCache_[h];
}

uint32_t KinetoStrings::newKey(std::string_view raw, std::string_view text, Role* role) {
    auto it = keys_.find(text);
    if (it == keys_.end()) {
        static const std::pair<std::string_view, Role> kRoles[] = {
            {"correlation", Role::Correlation},
            {"correlation_id", Role::Correlation},
            {"External id", Role::ExternalId},
            {"external id", Role::ExternalId},
            {"device", Role::Device},
            {"stream", Role::Stream},
            {"grid", Role::Grid},
            {"block", Role::Block},
            {"registers per thread", Role::Registers},
            {"shared memory", Role::SharedMemory},
            {"bytes", Role::Bytes},
            {"kernel_details", Role::KernelDetails},
            {"memcpy_details", Role::MemcpyDetails},
            {"tf_op", Role::TfOp},
            {"Input type", Role::InputType},
            {"Device Type", Role::MemDeviceType},
            {"Device Id", Role::MemDeviceId},
            {"Addr", Role::MemAddr},
            {"Bytes", Role::MemBytes},
            {"Total Allocated", Role::MemTotalAllocated},
            {"Total Reserved", Role::MemTotalReserved},
            {"name", Role::MetaName},
            {"sort_index", Role::MetaSortIndex},
        };
        Role r = Role::Plain;
        for (const auto& [known, knownRole] : kRoles)
            if (known == text) r = knownRole;
        // Kineto's "correlation" is XProf's correlation_id: one name, so flows join.
        const std::string_view statName = r == Role::Correlation ? "correlation_id" : text;
        it = keys_.emplace(std::string(text), std::make_pair(b_.statKey(b_.intern(statName)), r))
                 .first;
    }
    KeySlot& slot = slotOf(raw);
    const size_t n = raw.size();
    if (n <= sizeof slot.text) { // longer keys are not cached
        std::memcpy(slot.text, raw.data(), n);
        slot.size = uint8_t(n);
        slot.key = it->second.first;
        slot.role = it->second.second;
    }
    *role = it->second.second;
    return it->second.first;
}

StringId KinetoStrings::intern(std::string_view text) {
    // The slot: a hash of the size and the first and last 8 bytes (texts that differ only in
    // between share a slot, and are told apart by the compare).
    const size_t n = text.size();
    uint64_t h = n * 0x9E3779B97F4A7C15ull;
    if (n >= 8) {
        uint64_t first, last;
        std::memcpy(&first, text.data(), 8);
        std::memcpy(&last, text.data() + n - 8, 8);
        h = (h ^ first) * 0xC2B2AE3D27D4EB4Full;
        h = (h ^ last) * 0x165667B19E3779F9ull;
    } else {
        for (char c : text) h = (h ^ uint8_t(c)) * 0x100000001B3ull;
    }
    TextSlot& slot = textCache_[(h ^ (h >> 32)) & (kTextCacheSize - 1)];
    if (slot.size == n) {
        const std::string_view cached = b_.strings().get(slot.id);
        if (sameBytes(cached.data(), text.data(), n)) return slot.id;
    }
    const StringId id = b_.intern(text);
    slot = {id, uint32_t(std::min<size_t>(n, 0xFFFFFFFEu))};
    return id;
}

} // namespace stepscope::kineto
