#include "capture/RecordLimits.h"

#include <initializer_list>
#include <iterator>
#include <type_traits>
#include <utility>
#include <variant>

namespace stepscope::capture {

namespace {

using Field = std::pair<const char*, uint64_t>;

std::string firstAbove(std::initializer_list<Field> fields, uint64_t limit, const char* limitName) {
    for (const auto& [name, value] : fields)
        if (value > limit)
            return std::string(name) + " " + std::to_string(value) + " is above the limit of " +
                   limitName;
    return {};
}

std::string times(std::initializer_list<Field> fields) {
    return firstAbove(fields, kMaxRecordTimeNs, "2^62 ns");
}

std::string sizes(std::initializer_list<Field> fields) {
    return firstAbove(fields, kMaxRecordBytes, "2^48");
}

} // namespace

std::string recordKindName(const Record& record) {
    static constexpr const char* kNames[] = {
        "process record",  "thread record",         "device record",
        "kernel record",   "memcpy record",         "memset record",
        "API record",      "NVTX record",           "memory record",
        "overhead record", "dropped-records record"};
    static_assert(std::size(kNames) == std::variant_size_v<Record>);
    return kNames[record.index()];
}

std::string recordOutOfRange(const Record& record) {
    return std::visit(
        [](const auto& r) -> std::string {
            using R = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<R, ProcessRecord>) {
                if (r.wallStartNs < 0)
                    return "wallStartNs " + std::to_string(r.wallStartNs) + " is negative";
                return times(
                    {{"wallStartNs", uint64_t(r.wallStartNs)}, {"cuptiStartNs", r.cuptiStartNs}});
            } else if constexpr (std::is_same_v<R, DeviceRecord>) {
                return sizes({{"memoryBytes", r.memoryBytes}});
            } else if constexpr (std::is_same_v<R, MemoryRecord>) {
                std::string why = times({{"timestampNs", r.timestampNs}});
                return why.empty() ? sizes({{"bytes", r.bytes}}) : why;
            } else if constexpr (std::is_same_v<R, DroppedRecord>) {
                return sizes({{"count", r.count}});
            } else if constexpr (requires { r.endNs; }) {
                std::string why = times({{"startNs", r.startNs}, {"endNs", r.endNs}});
                if constexpr (requires { r.bytes; })
                    if (why.empty()) why = sizes({{"bytes", r.bytes}});
                return why;
            } else {
                return {};
            }
        },
        record);
}

} // namespace stepscope::capture
