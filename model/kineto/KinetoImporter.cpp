#include "model/kineto/KinetoImporter.h"

#include <new>
#include <stdexcept>

#include <simdjson.h>

#include "model/kineto/Gunzip.h"
#include "model/kineto/KinetoEventReader.h"
#include "model/kineto/KinetoTokenizer.h"

namespace stepscope {

namespace {

// The importer's pipeline (docs/architecture.md): the tokenizer finds and cuts the events, the
// event reader hands each to its tracker, and what the trackers hold is added once the host is
// read; then the trace is placed in time against the other hosts and its flows bound.
std::string importJson(const char* json, size_t size, bool padded, ProfileBuilder& b, uint32_t host,
                       const Progress* progress, size_t windowBytes) {
    if (size == 0) return "the file is empty";
    const size_t firstEvent = b.eventCount();
    kineto::KinetoTokenizer tokenizer(json, size, padded);
    kineto::KinetoEventReader reader(b, host, tokenizer, progress);
    if (size > simdjson::SIMDJSON_MAXSIZE_BYTES)
        return "the JSON is " + std::to_string(size) +
               " bytes, more than the 4 GiB one document may have";
    std::string closedWarning;
    if (std::string error = tokenizer.checkEnd(closedWarning); !error.empty()) return error;
    if (std::string error = tokenizer.read(windowBytes, reader); !error.empty()) return error;
    if (std::string error = reader.finish(); !error.empty()) return error;
    const std::vector<std::string> skips = tokenizer.skipWarnings();
    if (b.eventCount() == firstEvent) {
        std::string message = "the trace has no events to show (traceEvents holds no \"X\", "
                              "\"B\"/\"E\" or instant events)";
        for (const std::string& s : skips) message += "; " + s;
        return message;
    }
    Host& h = b.host(host);
    if (!closedWarning.empty()) h.warnings.push_back(closedWarning);
    h.warnings.insert(h.warnings.end(), skips.begin(), skips.end());
    for (std::string& w : reader.warnings()) h.warnings.push_back(std::move(w));
    int64_t originNs;
    if (std::string error = reader.timeBase(originNs); !error.empty()) return error;
    int64_t deltaPs = 0;
    if (!b.hasTimeBase()) {
        b.setTimeBase(originNs);
    } else {
        int64_t deltaNs;
        if (__builtin_sub_overflow(originNs, b.timeBaseNs(), &deltaNs) ||
            __builtin_mul_overflow(deltaNs, int64_t(1000), &deltaPs))
            return "the trace's times are too far from the other hosts' to show them together";
        if (!b.shiftEvents(firstEvent, deltaPs))
            return "the trace's times are too far from the other hosts' to show them together";
    }
    reader.bindFlows(deltaPs);
    return {};
}

} // namespace

bool looksLikeChromeTrace(std::span<const uint8_t> bytes) {
    if (isGzip(bytes)) return true;
    for (uint8_t c : bytes.first(std::min<size_t>(bytes.size(), 64))) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        return c == '{' || c == '[';
    }
    return false;
}

namespace {

std::string importAll(std::span<const uint8_t> bytes, ProfileBuilder& builder, uint32_t host,
                      const Progress* progress, size_t readableAfter, size_t windowBytes) {
    GunzipBuffer buffer;
    const char* json = reinterpret_cast<const char*>(bytes.data());
    size_t size = bytes.size();
    bool fromGzip = false;
    if (isGzip(bytes)) {
        const std::string error = gunzip(bytes, buffer, size, simdjson::SIMDJSON_PADDING, progress,
                                         simdjson::SIMDJSON_MAXSIZE_BYTES);
        if (!error.empty()) return error;
        json = reinterpret_cast<const char*>(buffer.data());
        fromGzip = true;
        if (size == 0) return "the file is empty once decompressed";
    }
    // simdjson reads up to SIMDJSON_PADDING bytes past the end of what it parses in place.
    const bool padded = fromGzip || readableAfter >= simdjson::SIMDJSON_PADDING;
    std::string error = importJson(json, size, padded, builder, host, progress, windowBytes);
    if (!error.empty() && fromGzip && error.find(" at byte ") != std::string::npos)
        error += " of the decompressed JSON";
    return error;
}

} // namespace

std::string importChromeTrace(std::span<const uint8_t> bytes, ProfileBuilder& builder,
                              uint32_t host, const Progress* progress, size_t readableAfter,
                              size_t windowBytes) {
    if (bytes.empty()) return "the file is empty";
    try {
        return importAll(bytes, builder, host, progress, readableAfter, windowBytes);
    } catch (const std::bad_alloc&) {
        return "out of memory while reading the trace (" + std::to_string(bytes.size()) +
               " bytes on disk)";
    } catch (const std::length_error&) {
        return "out of memory while reading the trace (" + std::to_string(bytes.size()) +
               " bytes on disk)";
    }
}

} // namespace stepscope
