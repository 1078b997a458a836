#include "views/trace/EventPalette.h"

#include <cstdint>

namespace stepscope {

namespace {
constexpr QRgb kPalette[] = {
    0xFF64B5F6, 0xFF81C784, 0xFFFFB74D, 0xFFBA68C8, 0xFFE57373, 0xFF4DB6AC,
    0xFFFFD54F, 0xFF7986CB, 0xFFF06292, 0xFFAED581, 0xFF4FC3F7, 0xFFBCAAA4,
    0xFF90A4AE, 0xFFDCE775, 0xFF4DD0E1, 0xFFFF8A65, 0xFF9575CD, 0xFFA5D6A7,
};
} // namespace

EventPalette::EventPalette(const Profile& profile)
    : metadata_(profile.metadataColumn()) {
    byMetadata_.reserve(profile.metadata().size());
    for (const EventMetadata& m : profile.metadata())
        byMetadata_.push_back(colorForName(profile.str(m.name)));
}

QRgb EventPalette::colorForName(std::string_view name) {
    // FNV-1a, then a final mix so that names differing only at the end spread too.
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : name) {
        h ^= c;
        h *= 1099511628211ull;
    }
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return kPalette[h % (sizeof kPalette / sizeof kPalette[0])];
}

} // namespace stepscope
