// libFuzzer target for the XSpace importer: any bytes must give either a profile that satisfies
// the model's invariants or an error message, never a crash. Built with clang and
// -DSTEPSCOPE_FUZZ=ON (the code it calls is instrumented too); `bash .ci/fuzz [SECONDS]` builds,
// seeds and runs it. One decoding thread: a thread pool per input costs more than it saves on
// inputs of a few KiB.
#include <cstdint>
#include <cstdlib>

#include "model/ProfileLoader.h"
#include "tests/fuzz/ProfileInvariants.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace stepscope;
    const LoadResult r = loadXSpaceBytes(std::span(data, size), "fuzz", nullptr, 1);
    if (!r.ok()) {
        if (r.error.empty()) std::abort();
        return 0;
    }
    fuzz::requireProfileInvariants(*r.profile);
    return 0;
}
