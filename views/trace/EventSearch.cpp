#include "views/trace/EventSearch.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

namespace stepscope {

namespace {
// Backtracking steps one name may take (PCRE2's default is 10 million): enough for any sane
// pattern on a long kernel name, and a fraction of a second for an exponential one.
constexpr uint32_t kMatchLimit = 1'000'000;

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
    // PCRE2, not std::regex: libstdc++'s matcher recurses per character, so a pattern like
    // (a|b)* over a multi-kilobyte kernel name overflows the worker's stack. PCRE2's interpreter
    // keeps its backtracking state on the heap, and its match limit stops a runaway match with
    // an error instead of running on (JIT is not used: its fixed stack fails long names
    // silently).
    using Code = std::unique_ptr<pcre2_code, decltype(&pcre2_code_free)>;
    using MatchData = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;
    using Context = std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)>;
    Code re(nullptr, pcre2_code_free);
    MatchData matchData(nullptr, pcre2_match_data_free);
    Context context(pcre2_match_context_create(nullptr), pcre2_match_context_free);
    if (query.regex) {
        int errorCode = 0;
        PCRE2_SIZE errorOffset = 0;
        re.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(query.text.data()), query.text.size(),
                               PCRE2_CASELESS | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &errorCode,
                               &errorOffset, nullptr));
        if (!re) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(errorCode, message, sizeof message);
            result.error = "Invalid regular expression: " +
                           std::string(reinterpret_cast<const char*>(message)) + " at offset " +
                           std::to_string(errorOffset);
            return result;
        }
        matchData.reset(pcre2_match_data_create_from_pattern(re.get(), nullptr));
        pcre2_set_match_limit(context.get(), kMatchLimit);
    }
    const std::string needle = lowered(query.text);
    // Metadata often repeat a name (one entry per plane); decide once per distinct string.
    std::vector<int8_t> nameMatches(profile.strings().size(), -1);
    auto nameMatch = [&](StringId id) {
        if (id == 0) return false;
        int8_t& m = nameMatches[id];
        if (m < 0) {
            const std::string_view name = profile.str(id);
            if (!query.regex) {
                m = lowered(name).find(needle) != std::string::npos;
            } else {
                const int rc = pcre2_match(re.get(), reinterpret_cast<PCRE2_SPTR>(name.data()),
                                           name.size(), 0, 0, matchData.get(), context.get());
                m = rc >= 0;
                if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) ++result.unsearchedNames;
            }
        }
        return m == 1;
    };
    for (size_t m = 0; m < metadata.size(); ++m) {
        // A pattern can be slow on every name: stay cancellable between names.
        if (progress && m % 256 == 0) {
            if (progress->cancelled()) {
                result.cancelled = true;
                return result;
            }
            progress->report("Matching names", double(m) / double(metadata.size()));
        }
        if (nameMatch(metadata[m].name) || nameMatch(metadata[m].displayName)) {
            matches[m] = 1;
            ++result.matchingNames;
        }
    }
    if (result.matchingNames == 0) return result;

    const std::span<const uint32_t> column = profile.metadataColumn();
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
    // In time order: each hit's start is decoded once, then (start, event) pairs are sorted.
    const Starts starts = profile.startColumn();
    std::vector<std::pair<int64_t, EventIndex>> byTime(result.hits.size());
    for (size_t i = 0; i < byTime.size(); ++i) byTime[i] = {starts[result.hits[i]], result.hits[i]};
    std::sort(byTime.begin(), byTime.end());
    for (size_t i = 0; i < byTime.size(); ++i) result.hits[i] = byTime[i].second;
    return result;
}

} // namespace stepscope
