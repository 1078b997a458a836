#include "model/kineto/JsonScan.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace stepscope::jsonscan {

size_t skipSpace(std::string_view text, size_t offset) {
    while (offset < text.size() && isSpace(text[offset])) ++offset;
    return offset;
}

std::string_view trimmed(std::string_view text) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

JsonShape jsonShape(std::string_view text) {
    JsonShape shape;
    int64_t depth = 0;
    shape.inString = scanOutsideStrings(text, [&](size_t i, char c) {
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) {
                shape.rootEnd = i + 1;
                return false;
            }
            if (depth == 1) shape.lastElementEnd = i + 1;
        }
        return true;
    });
    return shape;
}

size_t eventsArrayOpen(std::string_view text) {
    static constexpr std::string_view kKey = "\"traceEvents\"";
    const size_t key = text.find(kKey);
    if (key == std::string_view::npos) return text.size();
    const size_t colon = skipSpace(text, key + kKey.size());
    if (colon == text.size() || text[colon] != ':') return text.size();
    const size_t open = skipSpace(text, colon + 1);
    if (open == text.size() || text[open] != '[') return text.size();
    return open;
}

size_t windowCut(std::string_view text, size_t limit) {
    size_t comma = std::min(limit, text.size());
    while (comma > 0) {
        --comma;
        if (text[comma] != ',') continue;
        size_t brace = comma;
        while (brace > 0 && isSpace(text[brace - 1])) --brace;
        if (brace > 0 && text[brace - 1] == '}') return brace;
    }
    return 0;
}

size_t lastCommaOutsideStrings(std::string_view text) {
    size_t comma = std::string_view::npos;
    char last = 0; // the last character outside strings that is not a space
    scanOutsideStrings(text, [&](size_t i, char c) {
        if (c == ',' && last == '}') comma = i;
        if (!isSpace(c)) last = c;
        return true;
    });
    return comma;
}

bool parseMicros(std::string_view text, int64_t originUs, int64_t& ps) {
    size_t i = 0;
    const size_t n = text.size();
    bool negative = false;
    if (i < n && text[i] == '-') {
        negative = true;
        ++i;
    }
    uint64_t whole = 0;
    size_t digits = 0;
    for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
        if (digits >= 18) return false;
        whole = whole * 10 + uint64_t(text[i] - '0');
    }
    if (digits == 0) return false;
    int64_t frac = 0;
    if (i < n && text[i] == '.') {
        ++i;
        int64_t scale = 100000;
        size_t fracDigits = 0;
        for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i, ++fracDigits) {
            if (scale > 0) {
                frac += int64_t(text[i] - '0') * scale;
                scale /= 10;
            }
        }
        if (fracDigits == 0) return false;
    }
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        const double v = std::strtod(std::string(text).c_str(), nullptr);
        const double rel = (v - double(originUs)) * 1e6;
        if (!(rel > -9.2e18 && rel < 9.2e18)) return false;
        ps = int64_t(rel);
        return true;
    }
    const int64_t signedWhole = negative ? -int64_t(whole) : int64_t(whole);
    int64_t us, scaled;
    if (__builtin_sub_overflow(signedWhole, originUs, &us) ||
        __builtin_mul_overflow(us, int64_t(1000000), &scaled) ||
        __builtin_add_overflow(scaled, negative ? -frac : frac, &ps))
        return false;
    return true;
}

int64_t wholeMicros(std::string_view text) {
    int64_t v = 0;
    size_t i = text.starts_with('-') ? 1 : 0;
    size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 18; ++i, ++digits)
        v = v * 10 + (text[i] - '0');
    return text.starts_with('-') ? -v : v;
}

} // namespace stepscope::jsonscan
