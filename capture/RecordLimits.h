#pragma once

// The ranges a record's times and sizes must lie in, checked once as a record file is read
// (capture/RecordFile.h): a record outside them is left out, and the reader says which one and why.
// The injection library's records always lie inside; a hand-made or foreign file (one brought
// from elsewhere to `capture --records`) may not, and the converter's arithmetic on times (ps from
// the earliest record, the process's wall clock) and on memory in use relies on these bounds.

#include <cstdint>
#include <string>

#include "capture/CuptiRecords.h"

namespace stepscope::capture {

// A CUPTI or wall-clock time in ns: 2^62 ns after the Unix epoch is in the year 2116.
inline constexpr uint64_t kMaxRecordTimeNs = uint64_t(1) << 62;
// A size in bytes (a copy, a memset, an allocation, a device's memory), or a count: 256 TiB.
inline constexpr uint64_t kMaxRecordBytes = uint64_t(1) << 48;

// What a record is, in words ("memory record").
std::string recordKindName(const Record& record);

// The first time or size of `record` outside its range ("bytes 9223372036854775807 is above the
// limit of 2^48"); empty when every one is inside.
std::string recordOutOfRange(const Record& record);

} // namespace stepscope::capture
