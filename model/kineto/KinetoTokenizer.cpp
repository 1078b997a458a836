#include "model/kineto/KinetoTokenizer.h"

#include <cstring>
#include <new>

#include "model/kineto/JsonScan.h"

namespace stepscope::kineto {

using jsonscan::isSpace;

std::string KinetoTokenizer::checkEnd(std::string& warning) {
    const std::string_view all = text();
    const std::string_view trimmed = jsonscan::trimmed(all);
    const char open = trimmed.empty() ? 0 : trimmed.front();
    if ((open != '[' || trimmed.back() == ']') && (open != '{' || trimmed.back() == '}')) return {};
    const jsonscan::JsonShape shape = jsonscan::jsonShape(all);
    if (shape.rootEnd != std::string_view::npos)
        return "unexpected content after the JSON at byte " + std::to_string(shape.rootEnd) +
               " (the trace's JSON ends there)";
    const std::string_view rest = jsonscan::trimmed(all.substr(shape.lastElementEnd));
    const bool onlyBracketMissing =
        open == '[' && shape.lastElementEnd > 0 && !shape.inString && (rest.empty() || rest == ",");
    if (!onlyBracketMissing)
        return "the JSON ends early at byte " + std::to_string(size_) + ", inside " +
               (shape.inString ? "a string" : "an unclosed array or object") +
               "; is the file truncated?";
    closed_.assign(json_, json_ + shape.lastElementEnd);
    closed_.push_back(']');
    warning = "the trace's closing ] is missing (the Trace Event Format allows this); the events "
              "up to byte " +
              std::to_string(shape.lastElementEnd) + " are shown";
    size_ = closed_.size();
    closed_.resize(size_ + simdjson::SIMDJSON_PADDING, 0);
    json_ = closed_.data();
    padded_ = true;
    return {};
}

std::string KinetoTokenizer::read(size_t windowBytes, EventSink& sink) {
    sink_ = &sink;
    std::string message;
    try {
        if (windowBytes == 0 || !readByWindows(windowBytes)) readWhole();
    } catch (const ImportError& e) {
        message = e.message;
        if (message == "cancelled") return message;
        if (const std::optional<size_t> at = offsetOf(e.at))
            message += " at byte " + std::to_string(*at);
    } catch (const ParseFailure& f) {
        message = parseErrorMessage(f);
    } catch (const std::bad_alloc&) {
        message = "out of memory while reading the trace";
    }
    pieceCount_ = 0;
    return message;
}

std::vector<std::string> KinetoTokenizer::skipWarnings() const {
    std::vector<std::string> warnings;
    for (const auto& [reason, s] : skipped_)
        warnings.push_back(std::to_string(s.count) + " events skipped: " + reason +
                           " (first at byte " + std::to_string(s.firstAt) + ")");
    return warnings;
}

std::optional<size_t> KinetoTokenizer::offsetOf(const char* at) const {
    if (!at) return std::nullopt;
    for (size_t i = 0; i < pieceCount_; ++i) {
        const Piece& p = pieces_[i];
        if (at >= p.begin && at <= p.begin + p.size) return p.offset + size_t(at - p.begin);
    }
    if (at >= json_ && at <= json_ + size_) return size_t(at - json_);
    return std::nullopt;
}

// The whole text as one document: in place where it is padded as simdjson needs, else a copy.
void KinetoTokenizer::readWhole() {
    pieceCount_ = 0;
    if (padded_) return parseDocument(json_, size_, size_ + simdjson::SIMDJSON_PADDING);
    std::vector<char> copy(size_ + simdjson::SIMDJSON_PADDING, 0);
    std::memcpy(copy.data(), json_, size_);
    pieces_[0] = {copy.data(), size_, 0};
    pieceCount_ = 1;
    parseDocument(copy.data(), size_, copy.size());
}

void KinetoTokenizer::parseDocument(const char* text, size_t size, size_t capacity) {
    cut_ = nullptr;
    od::parser parser;
    od::document doc;
    if (const auto error = parser.iterate(text, size, capacity).get(doc))
        throw ParseFailure{error, std::nullopt};
    try {
        document(doc);
        // simdjson does not check that the root value closed: a document cut just after an
        // event's } reads as complete, and so would one with something after it.
        const char* left = nullptr;
        if (doc.current_location().get(left) == simdjson::SUCCESS) {
            const jsonscan::JsonShape shape = jsonscan::jsonShape(this->text());
            if (shape.rootEnd != std::string_view::npos)
                fail("unexpected content after the JSON at byte " + std::to_string(shape.rootEnd) +
                     " (the trace's JSON ends there)");
            fail("the JSON ends early at byte " + std::to_string(size_) +
                 ", inside an unclosed array or object; is the file truncated?");
        }
    } catch (const simdjson::simdjson_error& e) {
        const char* at = nullptr;
        std::optional<size_t> offset;
        if (doc.current_location().get(at) == simdjson::SUCCESS) offset = offsetOf(at);
        throw ParseFailure{e.error(), offset};
    }
}

// The root: an array of events, or an object with traceEvents and other fields, which go to the
// sink in the order of the text.
void KinetoTokenizer::document(od::document& doc) {
    const od::json_type t = doc.type();
    if (t == od::json_type::array) {
        traceEvents(doc.get_array());
        return;
    }
    if (t != od::json_type::object)
        fail("not a Chrome trace: the JSON is not an object or an array of events", json_);
    bool sawEvents = false;
    od::object top = doc.get_object();
    for (od::field f : top) {
        bool escaped;
        const std::string_view k = rawKey(f, escaped);
        od::value v = f.value();
        const char* at = v.current_location().value_unsafe();
        if (escaped) {
            continue;
        } else if (k == "traceEvents") {
            if (v.type() != od::json_type::array) fail("\"traceEvents\" is not an array", at);
            sawEvents = true;
            traceEvents(v.get_array());
        } else {
            sink_->rootField(k, v, at);
        }
    }
    if (!sawEvents) fail("not a Chrome trace: the JSON object has no \"traceEvents\" array", json_);
}

void KinetoTokenizer::traceEvents(od::array events) {
    for (auto e : events) {
        od::value v = e.value();
        element(v, v.current_location().value_unsafe());
    }
    commitSkipped();
}

// One element of traceEvents. A skip is counted when the next element starts (or the array
// ends), so that an event a window cut, read again from the next window, counts once.
void KinetoTokenizer::element(od::value& v, const char* at) {
    commitSkipped();
    if (v.type() != od::json_type::object)
        fail("traceEvents[" + std::to_string(eventCount_) + "] is not an event object", at);
    ++eventCount_;
    pendingSkip_ = sink_->event(v.get_object(), at);
}

void KinetoTokenizer::commitSkipped() {
    if (!pendingSkip_) return;
    Skipped& s = skipped_[pendingSkip_->reason];
    if (s.count++ == 0) s.firstAt = offsetOf(pendingSkip_->at).value_or(0);
    pendingSkip_.reset();
}

// Reading traceEvents a window at a time keeps simdjson's index of the text (4 bytes for each
// bracket, comma, colon and value: about the size of the text itself) small and in the cache,
// instead of one index of the whole file in fresh memory (docs/formats/kineto.md). The root
// object's other fields are read as two small documents, those before traceEvents first and
// those after it last, so that everything is read in the order of the text, as when it is read
// whole. False, having read nothing, where the events cannot be found by a scan (the whole text
// is then read as one document).
bool KinetoTokenizer::readByWindows(size_t windowBytes) {
    const size_t first = jsonscan::skipSpace(text(), 0);
    if (first == size_) return false;
    sink_->expectBytes(size_);
    if (json_[first] == '[') {
        const size_t close = readEvents(first, windowBytes);
        if (jsonscan::skipSpace(text(), close + 1) != size_)
            fail("unexpected content after the JSON at byte " + std::to_string(close + 1) +
                 " (the trace's JSON ends there)");
        return true;
    }
    if (json_[first] != '{') return false;
    const size_t open = jsonscan::eventsArrayOpen(text());
    if (open == size_) return false;
    // The text up to traceEvents' '[', closed by "]}".
    std::vector<char> head(open + 3 + simdjson::SIMDJSON_PADDING, 0);
    std::memcpy(head.data(), json_, open + 1);
    head[open + 1] = ']';
    head[open + 2] = '}';
    if (!isRootEvents(head, open)) return false;
    pieces_[0] = {head.data(), open + 1, 0};
    pieceCount_ = 1;
    parseDocument(head.data(), open + 3, head.size());
    std::vector<char>().swap(head);
    const size_t close = readEvents(open, windowBytes);
    // The text from traceEvents' ']' on, opened by {"traceEvents":[.
    static constexpr std::string_view kOpen = "{\"traceEvents\":[";
    const size_t tail = size_ - close;
    std::vector<char> rest(kOpen.size() + tail + simdjson::SIMDJSON_PADDING, 0);
    std::memcpy(rest.data(), kOpen.data(), kOpen.size());
    std::memcpy(rest.data() + kOpen.size(), json_ + close, tail);
    pieces_[0] = {rest.data() + kOpen.size(), tail, close};
    pieceCount_ = 1;
    parseDocument(rest.data(), kOpen.size() + tail, rest.size());
    return true;
}

// Whether `head` (the text up to the '[' at `open`, closed by "]}") is a root object whose only
// "traceEvents" is the array at `open`: one in a string or a nested object, or a second one, is
// never taken for it. Reads nothing into the profile.
bool KinetoTokenizer::isRootEvents(const std::vector<char>& head, size_t open) const {
    try {
        od::parser parser;
        od::document doc = parser.iterate(head.data(), open + 3, head.size());
        bool found = false;
        for (auto&& result : doc.get_object()) {
            if (result.error()) return false;
            od::field& f = result.value_unsafe();
            bool escaped;
            const std::string_view k = rawKey(f, escaped);
            od::value& v = f.value();
            if (escaped || k != "traceEvents") continue;
            if (found || v.current_location().value() != head.data() + open) return false;
            found = true;
        }
        const char* left = nullptr;
        return found && doc.current_location().get(left) != simdjson::SUCCESS;
    } catch (const simdjson::simdjson_error&) {
        return false;
    }
}

// Reads the events of the array whose '[' is at `open`; returns where its ']' is. A window is
// cut after a '}' that a ',' follows, where an event may end; where that '}' closes something
// inside an event, that event does not end in the window: it is read again from the next one.
size_t KinetoTokenizer::readEvents(size_t open, size_t windowBytes) {
    od::parser parser;
    std::vector<char> window;
    size_t pos = jsonscan::skipSpace(text(), open + 1);
    if (pos < size_ && json_[pos] == ']') return pos;
    size_t width = windowBytes;
    size_t limit = pos + width; // the cut is looked for before this
    for (;;) {
        const bool rest = size_ - pos <= width;
        size_t len = size_ - pos;
        if (!rest) {
            len = jsonscan::windowCut(text().substr(pos), limit - pos);
            if (len == 0) {
                width *= 2;
                limit = pos + width;
                continue;
            }
        }
        const WindowEnd end = readWindow(parser, window, pos, len, rest);
        if (end.closedAt != std::string_view::npos) return end.closedAt;
        if (end.resumeAt != pos) {
            pos = end.resumeAt;
            width = windowBytes;
            limit = pos + width;
        } else if (end.insideString) {
            // An earlier cut: the last one outside the window's strings, found in one pass
            // (trying each '},' before this one would parse the window once per '},' that a
            // long string holds).
            const size_t comma = jsonscan::lastCommaOutsideStrings(text().substr(pos, len));
            if (comma != std::string_view::npos) {
                limit = pos + comma + 1;
            } else {
                width *= 2; // one event's string runs past the cut: a larger window
                limit = pos + width;
            }
        } else {
            width *= 2; // the window holds no whole event: a larger one
            limit = pos + width;
        }
    }
}

// Reads the events in json_[pos, pos + len), an event's start to a cut (or the rest of the text:
// `rest`), as the array "[" text "]". Errors in a window that `rest` is not are the cut's doing
// until shown otherwise: the events before the one that failed are kept, and reading resumes at
// it. In the rest of the text, errors are the text's own.
KinetoTokenizer::WindowEnd KinetoTokenizer::readWindow(od::parser& parser,
                                                       std::vector<char>& window, size_t pos,
                                                       size_t len, bool rest) {
    if (window.size() < len + 2 + simdjson::SIMDJSON_PADDING)
        window.resize(len + 2 + simdjson::SIMDJSON_PADDING);
    window[0] = '[';
    std::memcpy(window.data() + 1, json_ + pos, len);
    window[len + 1] = ']';
    std::memset(window.data() + len + 2, 0, simdjson::SIMDJSON_PADDING);
    pieces_[0] = {window.data(), len + 2, pos - 1};
    pieceCount_ = 1;
    cut_ = rest ? nullptr : window.data() + len + 1;
    od::document doc;
    if (const auto error = parser.iterate(window.data(), len + 2, window.size()).get(doc)) {
        if (rest) throw ParseFailure{error, std::nullopt};
        return {std::string_view::npos, pos, error == simdjson::UNCLOSED_STRING};
    }
    const char* elementAt = nullptr;
    bool whole = false; // the element at elementAt was read to its end
    uint64_t countBefore = eventCount_;
    try {
        for (auto&& e : doc.get_array()) {
            if (e.error()) throw simdjson::simdjson_error(e.error());
            od::value& v = e.value_unsafe(); // a reference: see KinetoEventReader::event()
            elementAt = v.current_location().value_unsafe();
            whole = false;
            countBefore = eventCount_;
            element(v, elementAt);
            // A skipped event was left where the skip happened: not known to be whole.
            whole = !pendingSkip_;
        }
        commitSkipped();
    } catch (const simdjson::simdjson_error& e) {
        if (rest || whole) {
            const char* at = nullptr;
            std::optional<size_t> offset;
            if (doc.current_location().get(at) == simdjson::SUCCESS) offset = offsetOf(at);
            throw ParseFailure{e.error(), offset};
        }
        pendingSkip_.reset();
        eventCount_ = countBefore;
        return {std::string_view::npos, elementAt ? *offsetOf(elementAt) : pos, false};
    }
    const char* next = nullptr;
    if (doc.current_location().get(next) != simdjson::SUCCESS) {
        // The array ended at the window's own ']'.
        if (rest) throw ParseFailure{simdjson::INCOMPLETE_ARRAY_OR_OBJECT, std::nullopt};
        // The cut was before a ','; a ']' after it is a trailing comma, which JSON does not
        // allow (and the whole text read as one document is refused there).
        const size_t resume =
            jsonscan::skipSpace(text(), jsonscan::skipSpace(text(), pos + len) + 1);
        if (resume < size_ && json_[resume] == ']')
            throw ParseFailure{simdjson::TAPE_ERROR, resume};
        return {std::string_view::npos, resume, false};
    }
    // The text's ']' ended it: the last bracket before what follows.
    while (next > window.data() && isSpace(next[-1])) --next;
    return {*offsetOf(next - 1), std::string_view::npos, false};
}

std::string KinetoTokenizer::parseErrorMessage(const ParseFailure& f) const {
    std::string message;
    switch (f.code) {
    case simdjson::INCORRECT_TYPE:
        message = "a value has the wrong type";
        break;
    case simdjson::TAPE_ERROR:
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
    case simdjson::UNCLOSED_STRING: {
        const jsonscan::JsonShape shape = jsonscan::jsonShape(text());
        if (shape.rootEnd == std::string_view::npos)
            // The root value never closes: the file ends early, where it ends.
            return "the JSON ends early at byte " + std::to_string(size_) + ", inside " +
                   (shape.inString ? "a string" : "an unclosed array or object") +
                   "; is the file truncated?";
        message = std::string("the JSON is malformed (") + simdjson::error_message(f.code) + ")";
        break;
    }
    default:
        message = std::string("invalid JSON: ") + simdjson::error_message(f.code);
    }
    if (f.offset)
        message += " at byte " + std::to_string(*f.offset);
    else
        message += " (near the end of the file)";
    return message;
}

} // namespace stepscope::kineto
