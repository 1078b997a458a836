#pragma once

// What a running capture has recorded so far, for the launcher's progress: the record files in a
// folder, each read from where the last look stopped (whole frames only: a frame being written
// is read at the next look), their records counted by kind. The injection library writes what
// CUPTI completed once a second, so the counts trail the program by about that much.

#include <cstdint>
#include <map>
#include <string>

namespace stepscope::capture {

struct RecordCounts {
    uint64_t kernels = 0;
    uint64_t copies = 0; // memcpy and memset
    uint64_t apiCalls = 0;
    uint64_t nvtxRanges = 0;
    uint64_t memory = 0; // allocations and frees
    uint64_t processes = 0;
    uint64_t total() const { return kernels + copies + apiCalls + nvtxRanges + memory; }
};

// "1,204 kernels, 3 copies, 2,410 API calls, 12 NVTX ranges, 8 allocations and frees" (the
// kinds with none left out; "no records yet" when there are none), with "in 2 processes" where
// several wrote.
std::string recordCountsText(const RecordCounts& counts);

class LiveRecordCounts {
public:
    explicit LiveRecordCounts(std::string folder);
    // Reads what the folder's *.rec files gained since the last call; returns the counts so far.
    const RecordCounts& update();

private:
    std::string folder_;
    std::map<std::string, uint64_t> readUpTo_; // per file: the end of its last whole frame
    RecordCounts counts_;
};

} // namespace stepscope::capture
