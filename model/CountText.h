#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace stepscope {

// Counts given as text (command-line options): a decimal integer in [min, max], the whole text
// and nothing else; nullopt otherwise (never throws, whatever the text).
std::optional<uint64_t> parseCount(std::string_view text, uint64_t min, uint64_t max);

// Comma-separated counts, each in [min, max]; nullopt if any item is bad or there is none.
std::optional<std::vector<uint64_t>> parseCountList(std::string_view text, uint64_t min,
                                                    uint64_t max);

} // namespace stepscope
