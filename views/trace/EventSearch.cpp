#include "views/trace/EventSearch.h"

#include <algorithm>
#include <regex>

namespace stepscope {

namespace {
std::string lowered(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return out;
}
} // namespace

EventSearchResult searchEvents(const Profile& profile, const EventSearchQuery& query,
                               const Progress* progress) {
    EventSearchResult result;
    if (query.text.empty()) return result;

    const auto& metadata = profile.metadata();
    std::vector<uint8_t> matches(metadata.size(), 0);
    std::regex re;
    if (query.regex) {
        try {
            re = std::regex(query.text, std::regex::ECMAScript | std::regex::icase);
        } catch (const std::regex_error& e) {
            result.error = "Invalid regular expression: " + std::string(e.what());
            return result;
        }
    }
    const std::string needle = lowered(query.text);
    // Metadata often repeat a name (one entry per plane); decide once per distinct string.
    std::vector<int8_t> nameMatches(profile.strings().size(), -1);
    auto nameMatch = [&](StringId id) {
        if (id == 0) return false;
        int8_t& m = nameMatches[id];
        if (m < 0) {
            const std::string_view name = profile.str(id);
            m = query.regex ? std::regex_search(name.begin(), name.end(), re)
                            : lowered(name).find(needle) != std::string::npos;
        }
        return m == 1;
    };
    for (size_t m = 0; m < metadata.size(); ++m) {
        if (nameMatch(metadata[m].name) || nameMatch(metadata[m].displayName)) {
            matches[m] = 1;
            ++result.matchingNames;
        }
    }
    if (result.matchingNames == 0) return result;

    const std::vector<uint32_t>& column = profile.metadataColumn();
    const size_t n = column.size();
    constexpr size_t kChunk = 1 << 20;
    for (size_t b = 0; b < n; b += kChunk) {
        if (progress) {
            if (progress->cancelled()) {
                result.cancelled = true;
                result.hits.clear();
                return result;
            }
            progress->report("Searching", double(b) / double(n));
        }
        const size_t e = std::min(n, b + kChunk);
        for (size_t i = b; i < e; ++i)
            if (matches[column[i]]) result.hits.push_back(EventIndex(i));
    }
    const auto& starts = profile.startColumn();
    std::sort(result.hits.begin(), result.hits.end(), [&](EventIndex a, EventIndex b) {
        return starts[a] != starts[b] ? starts[a] < starts[b] : a < b;
    });
    return result;
}

} // namespace stepscope
