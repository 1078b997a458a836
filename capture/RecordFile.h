#pragma once

// The per-process record file the CUPTI injection library streams to disk: an 8-byte magic
// "SSCUPTI\x01", then zstd frames, each holding a batch of records as they were completed.
// Each frame carries zstd's content checksum. A frame is written with one write(2), so a crash of
// the profiled program loses at most the batch in flight; the reader keeps every whole frame before
// a truncated or corrupt one.
//
// Inside a frame, each record is: kind (1 byte), payload length (4 bytes LE), payload. Numbers
// are little-endian fixed width, strings a 4-byte length and the bytes.

#include <cstdint>
#include <string>
#include <vector>

#include "capture/CuptiRecords.h"

struct ZSTD_CCtx_s;

namespace stepscope::capture {

inline constexpr char kRecordFileMagic[8] = {'S', 'S', 'C', 'U', 'P', 'T', 'I', '\x01'};

// Encodes records into frames. Not thread-safe: the injection library serialises calls.
class RecordFileWriter {
public:
    // Opens (creates or truncates) `path` and writes the magic; error() says why when it fails.
    explicit RecordFileWriter(const std::string& path, int compressionLevel = 3);
    ~RecordFileWriter();
    RecordFileWriter(const RecordFileWriter&) = delete;
    RecordFileWriter& operator=(const RecordFileWriter&) = delete;

    bool ok() const { return fd_ >= 0 && error_.empty(); }
    const std::string& error() const { return error_; }

    void add(const Record& record); // buffered until flush()
    // Compresses the buffered records into one frame and writes it. False on a write error.
    bool flush();
    // Closes this copy of the record file without writing what is buffered, and writes nothing
    // after (a forked child's copy of its parent's writer: the records are the parent's to
    // write). Touches nothing but the file descriptor, which is all a forked child may rely on
    // when another thread of its parent was using the writer at the fork.
    void abandon();
    size_t framesWritten() const { return frames_; }

private:
    int fd_ = -1;
    ::ZSTD_CCtx_s* cctx_ = nullptr; // frames carry a checksum, so damage is detected
    std::vector<uint8_t> pending_;
    std::vector<uint8_t> compressed_;
    size_t frames_ = 0;
    std::string error_;
};

// Encodes one batch of records as a frame's content (exposed for tests and fuzzing).
void encodeRecord(const Record& record, std::vector<uint8_t>& out);

// How many left-out records the reader names; the rest are counted in one more line.
inline constexpr size_t kRejectedRecordsNamed = 10;

struct RecordFileContents {
    std::vector<Record> records;
    size_t frames = 0;         // whole frames read
    uint64_t bytesIgnored = 0; // bytes after the last whole frame (truncated or corrupt)
    std::string problem;       // empty when the file ended cleanly after a whole frame
    std::string error;         // set when the file cannot be used at all (missing, foreign)
    // Records left out because a time or size is out of range (capture/RecordLimits.h) or because
    // a second process record came: which record (frame, index, byte, kind) and why, for the
    // first kRejectedRecordsNamed, then one line counting the others.
    std::vector<std::string> rejected;
    uint64_t rejectedCount = 0;
    uint64_t processRecords = 0; // process records kept (at most one)
    bool ok() const { return error.empty(); }
};

// Decodes the whole frames in `data` (a record file's bytes after its magic, or a later part
// that starts at a frame), appending to `out.records` and `out.frames`; at the first frame that
// is truncated or damaged it stops and says so in `out.problem` (its byte counted from `offset`).
// Each record's times and sizes are checked once here: one out of range is left out and named in
// `out.rejected`, as is a process record after the first. Returns the bytes of the whole frames
// read.
size_t readRecordFrames(const uint8_t* data, size_t size, uint64_t offset, RecordFileContents& out);

// Reads a record file; tolerant of a truncated or corrupt tail (see `problem`).
RecordFileContents readRecordFile(const std::string& path);
// The same from bytes already in memory; `name` is used in messages.
RecordFileContents readRecordBytes(const uint8_t* data, size_t size, const std::string& name);

} // namespace stepscope::capture
