#pragma once

#include <array>
#include <cctype>
#include <cstdint>
#include <string_view>

#include "model/ProfileBuilder.h"

// What the fields of a Chrome trace event mean to the Kineto importer: the roles of its args,
// the kinds of its categories, and the values the event reader hands to the trackers.
namespace stepscope::kineto {

// What a stat key means to the importer.
enum class Role : uint8_t {
    Plain,
    Correlation,   // "correlation", "correlation_id"
    ExternalId,    // "External id" (2021: "external id")
    Device,        // "device"
    Stream,        // "stream"
    Grid,          // "grid": [x, y, z]
    Block,         // "block"
    Registers,     // "registers per thread"
    SharedMemory,  // "shared memory"
    Bytes,         // "bytes" of a copy or memset
    KernelDetails, // "kernel_details" (our own export)
    MemcpyDetails, // "memcpy_details"
    TfOp,          // "tf_op" (our own export)
    InputType,     // "Input type" of a cpu_op: its inputs' dtypes
    MemDeviceType, // "Device Type" of a [memory] event
    MemDeviceId,   // "Device Id"
    MemAddr,       // "Addr"
    MemBytes,      // "Bytes"
    MemTotalAllocated,
    MemTotalReserved,
    MetaName,      // "name" of an M event
    MetaSortIndex, // "sort_index"
};

enum class Kind : uint8_t { Host, Kernel, Memcpy, Memset, GpuAnnotation, Sync, Derived };

inline Kind kindOfCategory(std::string_view cat) {
    if (cat == "kernel" || cat == "Kernel") return Kind::Kernel;
    if (cat == "gpu_memcpy" || cat == "Memcpy") return Kind::Memcpy;
    if (cat == "gpu_memset" || cat == "Memset") return Kind::Memset;
    if (cat == "gpu_user_annotation") return Kind::GpuAnnotation;
    if (cat == "cuda_sync") return Kind::Sync;
    // Stepscope's Chrome trace export writes a device plane's derived lines (Steps, XLA Ops, ...)
    // under this category, so that they come back as derived lines of that device.
    if (cat == "derived") return Kind::Derived;
    return Kind::Host;
}

// Device lines: 0 work (a stream), 1 GPU annotations, 2 syncs, 3 derived lines from an export.
inline int lineKindOf(Kind k) {
    return k == Kind::GpuAnnotation ? 1 : k == Kind::Sync ? 2 : k == Kind::Derived ? 3 : 0;
}

// The runtime categories of the PyTorch TensorBoard plugin (trace.py EventTypeMap): runtime,
// cuda_runtime, xpu_runtime, mtia_runtime, glow_runtime, privateuse1_runtime, in any case; and
// cuda_driver (driver-API launches, such as cuBLAS's cuLaunchKernelEx on Hopper), as TorchTrace
// reads it.
inline bool isRuntimeCategory(std::string_view cat) {
    if (cat == "cuda_driver") return true;
    if (cat.size() < 7) return false;
    const std::string_view tail = cat.substr(cat.size() - 7);
    for (size_t i = 0; i < 7; ++i)
        if (std::tolower(static_cast<unsigned char>(tail[i])) != "runtime"[i]) return false;
    return cat.size() == 7 || cat[cat.size() - 8] == '_';
}

inline bool isOpCategory(std::string_view cat) {
    return cat == "cpu_op" || cat == "Operator";
}

// One arg of an event, read as a stat.
struct Arg {
    uint32_t key = 0; // builder stat key index
    Role role = Role::Plain;
    StatType type = StatType::Int64;
    uint64_t raw = 0;
    std::array<uint32_t, 3> dims{1, 1, 1}; // Grid / Block
    bool hasDims = false;
};

// A process or thread id: an integer, or a string (interned) that is not one.
struct Id {
    int64_t value = 0;
    bool isText = false;
    StringId text = 0;
};

// What a category means, worked out once per category (a small cache by its id).
class Categories {
public:
    struct Category {
        StringId id = 0xFFFFFFFFu;
        Kind kind = Kind::Host;
        bool op = false, runtime = false;
    };
    explicit Categories(ProfileBuilder& b)
        : b_(b) {}
    const Category& of(StringId cat) {
        Category& c = cache_[cat & 63];
        if (c.id != cat) {
            const std::string_view text = b_.strings().get(cat);
            c = {cat, kindOfCategory(text), isOpCategory(text), isRuntimeCategory(text)};
        }
        return c;
    }

private:
    ProfileBuilder& b_;
    std::array<Category, 64> cache_{};
};

} // namespace stepscope::kineto
