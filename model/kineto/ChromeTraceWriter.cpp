#include "model/kineto/ChromeTraceWriter.h"

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <zlib.h>

#include "model/Json.h"
#include "model/NumberFormat.h"

namespace stepscope {

namespace {

// Buffered output to a plain or gzip file.
class Sink {
public:
    Sink(const std::string& path, bool gzip)
        : gzip_(gzip) {
        if (gzip_)
            gz_ = gzopen(path.c_str(), "wb6");
        else
            file_ = std::fopen(path.c_str(), "wb");
        if (!gz_ && !file_) error_ = std::strerror(errno);
        buffer_.reserve(kFlush + 4096);
    }
    ~Sink() { close(); }
    std::string& buffer() { return buffer_; }
    void maybeFlush() {
        if (buffer_.size() >= kFlush) flush();
    }
    bool close() {
        flush();
        if (gz_ && gzclose(gz_) != Z_OK && error_.empty()) error_ = "cannot finish the gzip file";
        if (file_ && std::fclose(file_) != 0 && error_.empty()) error_ = std::strerror(errno);
        gz_ = nullptr;
        file_ = nullptr;
        return error_.empty();
    }
    const std::string& error() const { return error_; }

private:
    void flush() {
        if (buffer_.empty() || !error_.empty()) {
            buffer_.clear();
            return;
        }
        if (gz_) {
            if (gzwrite(gz_, buffer_.data(), unsigned(buffer_.size())) != int(buffer_.size()))
                error_ = "cannot write the gzip file (disk full?)";
        } else if (file_) {
            if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
                error_ = std::strerror(errno);
        }
        buffer_.clear();
    }
    static constexpr size_t kFlush = 1 << 20;
    bool gzip_;
    gzFile gz_ = nullptr;
    FILE* file_ = nullptr;
    std::string buffer_;
    std::string error_;
};

// Picoseconds as µs text, exact: 30001000 -> "30.001", -1500000 -> "-1.5".
void appendMicros(std::string& out, int64_t ps) {
    uint64_t v = ps < 0 ? uint64_t(0) - uint64_t(ps) : uint64_t(ps);
    if (ps < 0) out.push_back('-');
    out += std::to_string(v / 1000000);
    uint64_t frac = v % 1000000;
    if (frac == 0) return;
    char digits[7];
    for (int i = 5; i >= 0; --i) {
        digits[i] = char('0' + frac % 10);
        frac /= 10;
    }
    int n = 6;
    while (n > 0 && digits[n - 1] == '0') --n;
    out.push_back('.');
    out.append(digits, size_t(n));
}

void appendString(std::string& out, std::string_view s) {
    out.push_back('"');
    out += jsonEscape(s);
    out.push_back('"');
}

void appendStat(std::string& out, const StatValue& s, const StringPool& strings) {
    switch (s.type) {
    case StatType::Int64:
        out += std::to_string(int64_t(s.raw));
        break;
    case StatType::Uint64:
        out += std::to_string(s.raw);
        break;
    case StatType::Double: {
        const double d = std::bit_cast<double>(s.rawBits());
        if (!std::isfinite(d)) {
            out += "null";
            break;
        }
        std::string t = shortestNumber(d);
        // Keep it a double when read back: "12" would come back as an integer.
        if (t.find_first_of(".eE") == std::string::npos) t += ".0";
        out += t;
        break;
    }
    case StatType::Str:
    case StatType::Ref:
        appendString(out, strings.get(s.asString()));
        break;
    case StatType::Bytes:
        appendString(out, s.format(strings));
        break;
    }
}

} // namespace

std::string writeChromeTrace(const Profile& p, const std::string& path, const Progress* progress) {
    // Written next to the destination and renamed over it only when whole: a cancelled or failed
    // export leaves a file the user chose to overwrite as it was.
    const std::string partial = path + ".partial";
    Sink sink(partial, path.ends_with(".gz"));
    if (!sink.error().empty()) return "cannot write " + path + ": " + sink.error();
    std::string& out = sink.buffer();
    const StringPool& strings = p.strings();
    const StringId categoryKey = strings.find("category");

    // pid per plane: a Kineto host plane's own pid, a GPU's ordinal, otherwise a number past
    // any device ordinal. Hosts after the first are moved apart so that their pids never meet.
    std::vector<int64_t> pids(p.planes().size());
    for (size_t i = 0; i < p.planes().size(); ++i) {
        const Plane& pl = p.planes()[i];
        int64_t pid = 1000000 + int64_t(i);
        for (const StatValue& s : p.planeStats(pl))
            if (strings.get(s.key) == "pid" && s.type == StatType::Int64) pid = int64_t(s.raw);
        if (pl.kind == PlaneKind::Gpu && pl.deviceOrdinal >= 0) pid = pl.deviceOrdinal;
        pids[i] = pid + int64_t(pl.host) * 100000000;
    }

    out += "{\n\"schemaVersion\": 1,\n\"baseTimeNanoseconds\": " + std::to_string(p.startNs());
    out += ",\n\"deviceProperties\": [";
    bool firstDevice = true;
    for (const Plane& pl : p.planes()) {
        if (pl.kind != PlaneKind::Gpu || pl.deviceOrdinal < 0) continue;
        out += firstDevice ? "\n" : ",\n";
        firstDevice = false;
        out += "{\"id\": " + std::to_string(pl.deviceOrdinal);
        if (!pl.device.vendor.empty()) {
            out += ", \"name\": ";
            appendString(out, pl.device.vendor + " GPU");
        }
        if (pl.device.computeCapMajor)
            out += ", \"computeMajor\": " + std::to_string(pl.device.computeCapMajor) +
                   ", \"computeMinor\": " + std::to_string(pl.device.computeCapMinor);
        if (pl.device.coreCount) out += ", \"numSms\": " + std::to_string(pl.device.coreCount);
        if (pl.device.memoryBytes)
            out += ", \"totalGlobalMem\": " + std::to_string(pl.device.memoryBytes);
        out += "}";
    }
    out += "],\n\"traceEvents\": [\n";

    bool firstEvent = true;
    auto begin = [&] {
        if (!firstEvent) out += ",\n";
        firstEvent = false;
    };
    // Names and order.
    for (size_t i = 0; i < p.planes().size(); ++i) {
        const Plane& pl = p.planes()[i];
        std::string name(p.str(pl.name));
        for (const StatValue& s : p.planeStats(pl))
            if (strings.get(s.key) == "process_name" && s.isText())
                name = std::string(strings.get(s.asString()));
        if (p.hosts().size() > 1) name = p.hosts()[pl.host].name + " " + name;
        begin();
        out += "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " + std::to_string(pids[i]) +
               ", \"tid\": 0, \"args\": {\"name\": ";
        appendString(out, name);
        out += "}},\n{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": " +
               std::to_string(pids[i]) +
               ", \"tid\": 0, \"args\": {\"sort_index\": " + std::to_string(i) + "}}";
        uint32_t order = 0;
        for (const Track& t : p.tracksOf(pl)) {
            begin();
            const std::string tid = std::to_string(t.lineId);
            out +=
                "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(pids[i]) +
                ", \"tid\": " + tid + ", \"args\": {\"name\": ";
            appendString(out, p.str(t.displayName).empty() ? p.str(t.name) : p.str(t.displayName));
            out += "}},\n{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": " +
                   std::to_string(pids[i]) + ", \"tid\": " + tid +
                   ", \"args\": {\"sort_index\": " + std::to_string(order++) + "}}";
        }
    }

    // Events, track by track.
    const size_t total = p.eventCount();
    size_t written = 0;
    for (size_t t = 0; t < p.tracks().size(); ++t) {
        const Track& track = p.tracks()[t];
        const Plane& pl = p.planes()[track.plane];
        const std::string pidText = std::to_string(pids[track.plane]);
        const std::string tidText = std::to_string(track.lineId);
        const bool stream = pl.kind == PlaneKind::Gpu && track.deviceOps;
        for (EventIndex e = track.firstEvent; e < track.firstEvent + track.eventCount; ++e) {
            begin();
            out += "{\"ph\": \"X\", \"name\": ";
            appendString(out, p.name(e));
            std::string_view cat;
            for (const StatValue& s : p.metadataStats(p.metadataOf(e)))
                if (s.key == categoryKey && s.isText()) cat = strings.get(s.asString());
            if (stream && cat.empty()) {
                const MemcpyDetails* m = p.memcpys().find(e);
                cat = !m                                                ? "kernel"
                      : m->kind == CopyKind::Memset                     ? "gpu_memset"
                      : copyKindFromName(p.name(e)) == CopyKind::Memset ? "gpu_memset"
                                                                        : "gpu_memcpy";
            }
            if (pl.kind == PlaneKind::Gpu && track.derived) cat = "derived";
            if (!cat.empty()) {
                out += ", \"cat\": ";
                appendString(out, cat);
            }
            out += ", \"pid\": " + pidText + ", \"tid\": " + tidText + ", \"ts\": ";
            appendMicros(out, p.start(e));
            out += ", \"dur\": ";
            appendMicros(out, p.duration(e));
            out += ", \"args\": {";
            bool firstArg = true;
            auto arg = [&](const StatValue& s) {
                if (s.key == categoryKey) return;
                if (!firstArg) out += ", ";
                firstArg = false;
                appendString(out, strings.get(s.key));
                out += ": ";
                appendStat(out, s, strings);
            };
            if (stream) {
                bool hasDevice = false, hasStream = false;
                for (const StatValue& s : p.eventStats(e)) {
                    hasDevice |= strings.get(s.key) == "device";
                    hasStream |= strings.get(s.key) == "stream";
                }
                if (!hasDevice) {
                    out += "\"device\": " + std::to_string(pl.deviceOrdinal);
                    firstArg = false;
                }
                if (!hasStream) {
                    out += std::string(firstArg ? "" : ", ") + "\"stream\": " + tidText;
                    firstArg = false;
                }
            }
            for (const StatValue& s : p.metadataStats(p.metadataOf(e))) arg(s);
            for (const StatValue& s : p.eventStats(e)) arg(s);
            out += "}}";
            sink.maybeFlush();
            if ((++written & 0xFFFF) == 0 && progress) {
                if (progress->cancelled()) {
                    sink.close();
                    std::error_code ec;
                    std::filesystem::remove(partial, ec);
                    return "cancelled";
                }
                progress->report("Writing events", double(written) / double(total));
            }
        }
    }
    // Flows: one s/f pair per flow; launch -> device flows as Kineto's "ac2g" (the importer
    // joins those by correlation id), others (host -> host) under "flow", bound to slices again.
    std::vector<uint32_t> trackOf;
    uint64_t id = 0;
    for (const Flow& f : p.flows()) {
        const bool toDevice =
            p.planes()[p.tracks()[p.trackOf(f.target)].plane].kind != PlaneKind::Host;
        const std::string_view cat = toDevice ? "ac2g" : "flow";
        for (const EventIndex e : {f.launch, f.target}) {
            const Track& tr = p.tracks()[p.trackOf(e)];
            begin();
            out += "{\"ph\": \"";
            out += e == f.launch ? "s" : "f";
            out += "\", \"cat\": \"";
            out += cat;
            out += "\", \"name\": \"";
            out += cat;
            out += "\", \"id\": " + std::to_string(id) +
                   ", \"pid\": " + std::to_string(pids[tr.plane]) +
                   ", \"tid\": " + std::to_string(tr.lineId) + ", \"ts\": ";
            appendMicros(out, p.start(e));
            out += e == f.launch ? "}" : ", \"bp\": \"e\"}";
        }
        ++id;
        sink.maybeFlush();
    }
    out += "\n]\n}\n";
    std::error_code ec;
    if (!sink.close()) {
        std::filesystem::remove(partial, ec);
        return "cannot write " + path + ": " + sink.error();
    }
    std::filesystem::rename(partial, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(partial, ignored);
        return "cannot write " + path + ": " + ec.message();
    }
    return {};
}

} // namespace stepscope
