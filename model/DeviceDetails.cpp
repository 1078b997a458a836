#include "model/DeviceDetails.h"

#include <cctype>
#include <charconv>
#include <string>

namespace stepscope {

namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

// Calls fn(key, value) for each "key:value" token. Tokens are separated by any whitespace: newer
// profilers (and XProf's own tests) separate them with newlines.
template <class Fn> void forEachField(std::string_view text, Fn&& fn) {
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && isSpace(text[i])) ++i;
        size_t end = i;
        while (end < text.size() && !isSpace(text[end])) ++end;
        const std::string_view token = text.substr(i, end - i);
        const size_t colon = token.find(':');
        if (colon != std::string_view::npos) fn(token.substr(0, colon), token.substr(colon + 1));
        i = end;
    }
}

template <class T> bool parseNumber(std::string_view s, T& out) {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// "x,y,z": exactly three numbers, as XProf's ParseKernelLaunchParams accepts them; otherwise
// `out` keeps its value.
bool parseDim3(std::string_view s, std::array<uint32_t, 3>& out) {
    std::array<uint32_t, 3> v{};
    for (int i = 0; i < 3; ++i) {
        const size_t comma = s.find(',');
        if ((comma == std::string_view::npos) != (i == 2)) return false;
        if (!parseNumber(s.substr(0, comma), v[i])) return false;
        if (comma != std::string_view::npos) s.remove_prefix(comma + 1);
    }
    out = v;
    return true;
}

bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}
bool contains(std::string_view s, std::string_view p) {
    return s.find(p) != std::string_view::npos;
}

} // namespace

KernelDetails KernelDetails::parse(std::string_view text) {
    KernelDetails d;
    bool grid = false, block = false;
    forEachField(text, [&](std::string_view key, std::string_view value) {
        if (key == "regs")
            d.hasRegisters = parseNumber(value, d.registersPerThread);
        else if (key == "shm" || key == "static_shared" || key == "group_mem")
            d.hasSharedMemory |= parseNumber(value, d.staticSharedBytes);
        else if (key == "dynamic_shared")
            d.hasSharedMemory |= parseNumber(value, d.dynamicSharedBytes);
        else if (key == "private_mem")
            parseNumber(value, d.privateBytes);
        else if (key == "grid")
            grid = parseDim3(value, d.grid);
        else if (key == "block")
            block = parseDim3(value, d.block);
        else if (key == "occ_pct") {
            double v = 0;
            if (parseNumber(value, v)) d.occupancyPct = v;
        }
    });
    d.valid = grid && block;
    return d;
}

MemcpyDetails MemcpyDetails::parse(std::string_view text) {
    MemcpyDetails d;
    bool size = false;
    forEachField(text, [&](std::string_view key, std::string_view value) {
        if (key == "size")
            size = parseNumber(value, d.bytes);
        else if (key == "dest")
            parseNumber(value, d.destination);
        else if (key == "async")
            d.async = value == "1" || value == "true";
        else if (key == "kind")
            d.kind = copyKindFromName(value);
    });
    d.valid = size;
    return d;
}

CopyKind copyKindFromName(std::string_view name) {
    if (contains(name, "H2D") || contains(name, "HtoD")) return CopyKind::HostToDevice;
    if (contains(name, "D2H") || contains(name, "DtoH")) return CopyKind::DeviceToHost;
    if (contains(name, "D2D") || contains(name, "DtoD")) return CopyKind::DeviceToDevice;
    if (contains(name, "P2P") || contains(name, "PtoP") || contains(name, "Peer"))
        return CopyKind::PeerToPeer;
    if (startsWith(name, "Memset") || contains(name, "memset") || contains(name, "Memset"))
        return CopyKind::Memset;
    return CopyKind::Unknown;
}

std::string_view copyKindName(CopyKind kind) {
    switch (kind) {
    case CopyKind::HostToDevice:
        return "HtoD";
    case CopyKind::DeviceToHost:
        return "DtoH";
    case CopyKind::DeviceToDevice:
        return "DtoD";
    case CopyKind::PeerToPeer:
        return "PtoP";
    case CopyKind::Memset:
        return "Memset";
    case CopyKind::Unknown:
        break;
    }
    return "Unknown";
}

GpuVendor gpuVendorOf(std::string_view vendor) {
    std::string lower(vendor);
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("nvidia") != std::string::npos) return GpuVendor::Nvidia;
    if (lower.find("amd") != std::string::npos ||
        lower.find("advanced micro devices") != std::string::npos)
        return GpuVendor::Amd;
    return GpuVendor::Unknown;
}

} // namespace stepscope
