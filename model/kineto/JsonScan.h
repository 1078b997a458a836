#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

// Scanners over bare JSON text, without a parser: where a Chrome trace's events array opens,
// where a window of events may be cut, where the text ends structurally, and the exact numbers
// of its times. KinetoTokenizer uses them; tests read them on bare strings.
namespace stepscope::jsonscan {

inline bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The first offset at or after `offset` that is not a blank (text.size() if none).
size_t skipSpace(std::string_view text, size_t offset);

// `text` without leading and trailing blanks.
std::string_view trimmed(std::string_view text);

// Calls visit(i, c) for each character of `text` outside strings, the quotes that open and
// close a string included; visit returns false to stop. Returns whether the text ended inside a
// string (false where visit stopped).
template <class Visit> bool scanOutsideStrings(std::string_view text, Visit&& visit) {
    for (size_t i = 0; i < text.size(); ++i) {
        if (!visit(i, text[i])) return false;
        if (text[i] != '"') continue;
        // The string, to its closing quote, past escaped characters.
        for (++i; i < text.size() && text[i] != '"'; ++i)
            if (text[i] == '\\') ++i;
        if (i >= text.size()) return true;
        if (!visit(i, '"')) return false;
    }
    return false;
}

// Where a JSON text ends structurally, found by a scan of its brackets and strings: used only
// when the text does not end as its first byte says it should, to say where and why.
struct JsonShape {
    size_t rootEnd = std::string_view::npos; // just past the root value's closing bracket
    size_t lastElementEnd = 0; // just past the last whole element of a root array (0: none)
    bool inString = false;
};
JsonShape jsonShape(std::string_view text);

// The offset of the '[' that follows the first "traceEvents" key of `text` (text.size() if the
// key is not followed by ':' and '['). Whether that key is the root object's is not checked.
size_t eventsArrayOpen(std::string_view text);

// Where a window of events that starts at an event's start (offset 0) may end before `limit`:
// just past the last '}' that a ',' follows (blanks between), found back from `limit`; 0 where
// there is none. Strings are not looked into: the '}' may be inside one, or close an object
// inside an event, which the parser then reports.
size_t windowCut(std::string_view text, size_t limit);

// The offset of the last ',' of `text` outside strings that follows a '}' (blanks between),
// reading from offset 0 outside a string; npos where there is none.
size_t lastCommaOutsideStrings(std::string_view text);

// A time in picoseconds read from a JSON number in µs, exactly: "1669783687464181",
// "68.0", "12.345678", "-3.5". `originUs` is subtracted from the integer part before scaling, so
// absolute epoch times (1.7e15 µs = 1.7e21 ps) fit. Digits past the sixth decimal (below 1 ps)
// are dropped. Exponent forms ("1.5e3") go through a double, which is exact for them in practice.
// False where the text is no such number or the time does not fit.
bool parseMicros(std::string_view text, int64_t originUs, int64_t& ps);

// The whole-µs part of a number's text (for the origin), 0 if it has none.
int64_t wholeMicros(std::string_view text);

// The common number, an integer of 1 to 18 digits, read inline (false for any other text).
inline bool smallInteger(std::string_view t, int64_t& out) {
    const bool negative = !t.empty() && t[0] == '-';
    const size_t digits = t.size() - negative;
    if (digits == 0 || digits > 18) return false;
    int64_t v = 0;
    for (size_t i = negative; i < t.size(); ++i) {
        const unsigned d = unsigned(t[i]) - '0';
        if (d > 9) return false;
        v = v * 10 + int64_t(d);
    }
    out = negative ? -v : v;
    return true;
}

} // namespace stepscope::jsonscan
