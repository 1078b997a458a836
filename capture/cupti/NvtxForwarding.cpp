// NVTX's entry point in libstepscope_cupti.so. NVTX v3 loads the library that
// NVTX_INJECTION64_PATH names and calls its InitializeInjectionNvtx2 (nvtx3/nvtxDetail/
// nvtxInit.h), once per NVTX instance in the process: each library built with NVTX's
// header-only code (libtorch, a program's own) initialises on its own. The launcher names this
// library there, and each call goes on to the libcupti this library is bound to, the CUPTI
// instance that records. Naming libcupti itself there fails when the program brought its own copy
// of it (PyTorch's wheel links nvidia/cu13's libcupti.so.13, loaded at import): NVTX then loads
// the toolkit's copy, a second CUPTI instance that no one records from.

#include <cupti.h>
#include <dlfcn.h>

#include "capture/cupti/InjectionState.h"

namespace {

using GetExportTable = const void* (*)(uint32_t exportTableId); // NvtxGetExportTableFunc_t
using NvtxInit = int (*)(GetExportTable);

// The InitializeInjectionNvtx2 of the libcupti this library's CUPTI calls go to, or null.
NvtxInit boundCuptiNvtxInit() {
    // Any libcupti function this library calls resolves into the copy it is bound to.
    Dl_info info{};
    if (!::dladdr(reinterpret_cast<void*>(&cuptiGetTimestamp), &info) || !info.dli_fname)
        return nullptr;
    void* cupti = ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    return cupti ? reinterpret_cast<NvtxInit>(::dlsym(cupti, "InitializeInjectionNvtx2")) : nullptr;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int
InitializeInjectionNvtx2(GetExportTable getExportTable) {
    const NvtxInit init = boundCuptiNvtxInit();
    if (!init) {
        stepscope::capture::injection::say(
            "NVTX ranges are not recorded: the libcupti this library uses has no "
            "InitializeInjectionNvtx2");
        return 0; // NVTX then turns its calls into no-ops
    }
    return init(getExportTable);
}
