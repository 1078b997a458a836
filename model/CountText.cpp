#include "model/CountText.h"

#include <charconv>

namespace stepscope {

std::optional<uint64_t> parseCount(std::string_view text, uint64_t min, uint64_t max) {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
        return std::nullopt;
    return v;
}

std::optional<std::vector<uint64_t>> parseCountList(std::string_view text, uint64_t min,
                                                    uint64_t max) {
    std::vector<uint64_t> out;
    while (!text.empty()) {
        const size_t comma = text.find(',');
        const auto v = parseCount(text.substr(0, comma), min, max);
        if (!v) return std::nullopt;
        out.push_back(*v);
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
        if (text.empty()) return std::nullopt; // a trailing comma
    }
    if (out.empty()) return std::nullopt;
    return out;
}

} // namespace stepscope
