// libFuzzer target for local capture's record files as `capture --records` reads them from
// anywhere: the reader (capture/RecordFile.h), then the converter (capture/CuptiConverter.h),
// then the XSpace importer on what the converter wrote. Any bytes must give either a message
// naming the file or records whose XSpace loads and satisfies the model's invariants, with no
// undefined behaviour on the way (times and sizes a foreign file makes up included). Frames carry
// zstd checksums, so byte mutation alone rarely gets past the first frame: the fuzz binary links
// RecordFileMutator.cpp, which mutates the records inside the frames and compresses them again.
#include <cstdint>
#include <cstdlib>

#include "capture/CuptiConverter.h"
#include "capture/RecordFile.h"
#include "model/ProfileLoader.h"
#include "tests/fuzz/ProfileInvariants.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace stepscope;
    const capture::RecordFileContents c = capture::readRecordBytes(data, size, "fuzz.rec");
    if (!c.ok()) {
        if (c.error.find("fuzz.rec") == std::string::npos) std::abort();
        return 0;
    }
    if (c.records.empty()) return 0; // a run skips such a file, with a warning
    const capture::ConversionInput input{c.records, c.problem, c.rejected};
    if (capture::processHostName(input.records).empty()) std::abort();
    const LoadResult r = loadXSpaceBytes(capture::convertToXSpace(input), "fuzz", nullptr, 1);
    if (!r.ok()) std::abort(); // the converter wrote an XSpace the importer refuses
    fuzz::requireProfileInvariants(*r.profile);
    return 0;
}
