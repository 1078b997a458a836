#include "capture/LiveRecordCounts.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <type_traits>
#include <variant>
#include <vector>

#include "capture/RecordFile.h"

namespace stepscope::capture {

namespace {

std::string withCommas(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

// The bytes of `path` from `from` to its end (empty when it cannot be read).
std::vector<uint8_t> bytesFrom(const std::string& path, uint64_t from) {
    std::vector<uint8_t> bytes;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return bytes;
    if (std::fseek(f, long(from), SEEK_SET) == 0) {
        uint8_t chunk[1 << 16];
        size_t n = 0;
        while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
            bytes.insert(bytes.end(), chunk, chunk + n);
    }
    std::fclose(f);
    return bytes;
}

} // namespace

std::string recordCountsText(const RecordCounts& c) {
    std::string text;
    const auto add = [&text](uint64_t n, const char* one, const char* many) {
        if (n == 0) return;
        text += (text.empty() ? "" : ", ") + withCommas(n) + " " + (n == 1 ? one : many);
    };
    add(c.kernels, "kernel", "kernels");
    add(c.copies, "copy", "copies");
    add(c.apiCalls, "API call", "API calls");
    add(c.nvtxRanges, "NVTX range", "NVTX ranges");
    add(c.memory, "allocation or free", "allocations and frees");
    if (text.empty()) text = "no records yet";
    if (c.processes > 1) text += " in " + withCommas(c.processes) + " processes";
    return text;
}

LiveRecordCounts::LiveRecordCounts(std::string folder)
    : folder_(std::move(folder)) {}

const RecordCounts& LiveRecordCounts::update() {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder_, ec)) {
        if (entry.path().extension() != ".rec") continue;
        const std::string path = entry.path().string();
        uint64_t& at = readUpTo_[path];
        const std::vector<uint8_t> bytes = bytesFrom(path, at);
        size_t skip = 0;
        if (at == 0) {
            // Not even the magic yet, or not a record file: look again later.
            if (bytes.size() < sizeof kRecordFileMagic ||
                std::memcmp(bytes.data(), kRecordFileMagic, sizeof kRecordFileMagic) != 0)
                continue;
            skip = sizeof kRecordFileMagic;
            ++counts_.processes;
        }
        RecordFileContents frames;
        at += skip + readRecordFrames(bytes.data() + skip, bytes.size() - skip, at + skip, frames);
        for (const Record& r : frames.records) {
            std::visit(
                [this](const auto& x) {
                    using R = std::decay_t<decltype(x)>;
                    if constexpr (std::is_same_v<R, KernelRecord>)
                        ++counts_.kernels;
                    else if constexpr (std::is_same_v<R, MemcpyRecord> ||
                                       std::is_same_v<R, MemsetRecord>)
                        ++counts_.copies;
                    else if constexpr (std::is_same_v<R, ApiRecord>)
                        ++counts_.apiCalls;
                    else if constexpr (std::is_same_v<R, NvtxRangeRecord>)
                        ++counts_.nvtxRanges;
                    else if constexpr (std::is_same_v<R, MemoryRecord>)
                        ++counts_.memory;
                },
                r);
        }
    }
    return counts_;
}

} // namespace stepscope::capture
