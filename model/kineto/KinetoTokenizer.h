#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

// The first stage of the Kineto importer (as Perfetto's json_trace_tokenizer): finds the
// traceEvents array, cuts it into windows that simdjson indexes one at a time, glues an event
// that a cut divided by reading it again from the next window, and hands each event object to
// an EventSink. It also owns positions: every message names a byte offset of the text as read.
namespace stepscope::kineto {

namespace od = simdjson::ondemand;

// A problem that stops the import (the text is not a trace, the user cancelled): the message,
// and where in the JSON it is, when known. Events that cannot be shown are SkippedEvents.
struct ImportError {
    std::string message;
    const char* at = nullptr;
};

[[noreturn]] inline void fail(std::string message, const char* at = nullptr) {
    throw ImportError{std::move(message), at};
}

// One event that cannot be shown (a negative "dur", a "ts" out of range, a field of the wrong
// type): it is left out and counted, by reason with the offset of the first, and the rest of
// the trace loads.
struct SkippedEvent {
    std::string reason;
    const char* at = nullptr;
};

// What reads the events: each element of traceEvents that is an object, and the root object's
// other fields.
class EventSink {
public:
    // About how many bytes of text the events take (room to reserve).
    virtual void expectBytes(size_t bytes) = 0;
    // One event; what it cannot show is returned, not thrown. simdjson errors (the window's cut
    // or the text's own) are thrown: the tokenizer tells them apart.
    virtual std::optional<SkippedEvent> event(od::object obj, const char* at) = 0;
    // A field of the root object other than traceEvents, whose key has no escapes.
    virtual void rootField(std::string_view key, od::value& v, const char* at) = 0;

protected:
    ~EventSink() = default;
};

class KinetoTokenizer {
public:
    // `padded`: SIMDJSON_PADDING bytes after json's end may be read.
    KinetoTokenizer(const char* json, size_t size, bool padded)
        : json_(json)
        , size_(size)
        , padded_(padded) {}

    // Checks that the text ends as it begins. The Trace Event Format's array form may lack its
    // closing ] (a program that crashed while writing): the events before it are then read, and
    // `warning` says so. Returns a message where the text cannot be read.
    std::string checkEnd(std::string& warning);

    // Reads the whole text into `sink`: traceEvents a window of about `windowBytes` at a time,
    // or as one document where `windowBytes` is 0 or the events cannot be found by a scan.
    // Returns an empty string, "cancelled", or a message naming the byte offset.
    std::string read(size_t windowBytes, EventSink& sink);

    // The byte offset of a position in the text being parsed (a window, a copy or the text).
    std::optional<size_t> offsetOf(const char* at) const;
    // An array or object value's text, which must end before the window's cut: simdjson closes
    // a value that the cut divided with the window's own ']', and its text is not the value's.
    // Throws simdjson's TAPE_ERROR then: the event is read again from the next window.
    std::string_view whole(std::string_view raw) const {
        if (cut_ && raw.data() + raw.size() > cut_)
            throw simdjson::simdjson_error(simdjson::TAPE_ERROR);
        return raw;
    }
    size_t size() const { return size_; }

    // "N events skipped: reason (first at byte B)", one per reason.
    std::vector<std::string> skipWarnings() const;

private:
    // simdjson's error, where in the file it happened when known.
    struct ParseFailure {
        simdjson::error_code code;
        std::optional<size_t> offset;
    };
    struct WindowEnd {
        size_t closedAt = std::string_view::npos; // the events' ']', where the window held it
        size_t resumeAt = std::string_view::npos; // the first event the window did not read
        bool insideString = false;                // the window was cut inside a string
    };
    std::string_view text() const { return {json_, size_}; }
    void readWhole();
    bool readByWindows(size_t windowBytes);
    bool isRootEvents(const std::vector<char>& head, size_t open) const;
    size_t readEvents(size_t open, size_t windowBytes);
    WindowEnd readWindow(od::parser& parser, std::vector<char>& window, size_t pos, size_t len,
                         bool rest);
    void parseDocument(const char* text, size_t size, size_t capacity);
    void document(od::document& doc);
    void traceEvents(od::array events);
    void element(od::value& v, const char* at);
    void commitSkipped();
    std::string parseErrorMessage(const ParseFailure& f) const;

    const char* json_;
    size_t size_;
    bool padded_;
    EventSink* sink_ = nullptr;
    std::vector<char> closed_; // the text with a missing closing ] added
    // The text being parsed where it is a copy of parts of json_ (a window of events, the
    // document without its events): where each part lies in json_, for positions in messages.
    struct Piece {
        const char* begin;
        size_t size;
        size_t offset;
    };
    std::array<Piece, 2> pieces_{};
    size_t pieceCount_ = 0;
    const char* cut_ = nullptr; // the ']' that closes a window cut before the text's end
    uint64_t eventCount_ = 0;
    // The last event's skip, counted once the event is known to be whole (a window may cut it).
    std::optional<SkippedEvent> pendingSkip_;
    struct Skipped {
        uint64_t count = 0;
        size_t firstAt = 0;
    };
    std::map<std::string, Skipped> skipped_; // by reason
};

// A field key's text as written, escapes and all: from after its opening quote to its closing
// quote, which is found back from the value (past the ':' and any blanks), not by a scan of the
// key. The field's value is not read.
inline std::string_view rawKeyText(od::field& f) {
    const char* begin = f.key().raw();
    const char* end = f.value().current_location().value_unsafe();
    do --end;
    while (*end != ':');
    do --end;
    while (*end != '"');
    return {begin, size_t(end - begin)};
}

// The same, where escapes matter: `escaped` says the key has some (read it unescaped then).
inline std::string_view rawKey(od::field& f, bool& escaped) {
    const std::string_view k = rawKeyText(f);
    escaped = k.find('\\') != std::string_view::npos;
    return escaped ? std::string_view() : k;
}

} // namespace stepscope::kineto
