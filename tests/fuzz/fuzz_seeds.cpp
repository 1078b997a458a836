// Writes the seeds of one fuzz target into a folder: small synthetic inputs, which let libFuzzer
// mutate every field kind quickly, and, from the real files under REALDATA (../shared/realdata),
// cut-down copies that still parse (a few events of each line, the first events of a trace, the
// first records of a capture) and the HLO protos inside real profiles. .ci/fuzz adds the whole
// real files itself. Usage: fuzz_seeds TARGET OUTDIR [REALDATA], TARGET one of xspace_importer,
// kineto_importer, hlo_proto, record_file.
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "capture/RecordFile.h"
#include "model/ProfileLoader.h"
#include "model/kineto/ChromeTraceWriter.h"
#include "model/kineto/Gunzip.h"
#include "model/synthetic/SyntheticProfile.h"
#include "xplane.pb.h"

namespace {

namespace fs = std::filesystem;
using namespace stepscope;

struct Seeds {
    fs::path dir;
    int written = 0;
    bool failed = false;
    void write(const std::string& name, std::string_view bytes) {
        std::ofstream out(dir / name, std::ios::binary);
        out.write(bytes.data(), std::streamsize(bytes.size()));
        if (!out) {
            std::fprintf(stderr, "fuzz_seeds: cannot write %s\n", (dir / name).c_str());
            failed = true;
        }
        ++written;
    }
};

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every file under `realdata` whose name ends with `suffix`, in name order.
std::vector<fs::path> realFiles(const std::string& realdata, const std::string& suffix) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (realdata.empty() || !fs::is_directory(realdata, ec)) return files;
    for (const auto& e : fs::recursive_directory_iterator(realdata, ec))
        if (e.is_regular_file() && e.path().filename().string().ends_with(suffix))
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<uint8_t> syntheticXSpace(uint64_t events, int gpus) {
    SyntheticOptions options;
    options.events = events;
    options.gpus = gpus;
    options.seed = events + uint64_t(gpus);
    return generateSyntheticXSpace(options, "seed");
}

// An XSpace cut down to `lines` lines a plane and `events` events a line, with only the event
// metadata those events use; `plane` >= 0 keeps that plane alone.
std::string cutXSpace(const tensorflow::profiler::XSpace& whole, int lines, int events, int plane) {
    tensorflow::profiler::XSpace cut = whole;
    if (plane >= 0) {
        cut.clear_planes();
        *cut.add_planes() = whole.planes(plane);
    }
    for (auto& p : *cut.mutable_planes()) {
        if (p.lines_size() > lines)
            p.mutable_lines()->DeleteSubrange(lines, p.lines_size() - lines);
        std::set<int64_t> used;
        for (auto& l : *p.mutable_lines()) {
            if (l.events_size() > events)
                l.mutable_events()->DeleteSubrange(events, l.events_size() - events);
            for (const auto& e : l.events()) used.insert(e.metadata_id());
        }
        // Metadata-only planes (/host:metadata: HLO protos) keep a few entries, the rest all used.
        auto& metadata = *p.mutable_event_metadata();
        int kept = 0;
        for (auto it = metadata.begin(); it != metadata.end();)
            if (used.count(it->first) || (p.lines_size() == 0 && kept++ < 2))
                ++it;
            else
                it = metadata.erase(it);
    }
    return cut.SerializeAsString();
}

void xspaceSeeds(Seeds& seeds, const std::string& realdata) {
    for (const uint64_t events : {40, 300, 3000})
        for (const int gpus : {1, 2}) {
            const std::vector<uint8_t> bytes = syntheticXSpace(events, gpus);
            seeds.write("synthetic_" + std::to_string(events) + "_" + std::to_string(gpus) +
                            ".xplane.pb",
                        {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
        }
    for (const fs::path& path : realFiles(realdata, ".xplane.pb")) {
        tensorflow::profiler::XSpace whole;
        if (!whole.ParseFromString(readFile(path))) continue;
        const std::string stem = path.stem().stem().string();
        seeds.write(stem + "_cut_3x20.xplane.pb", cutXSpace(whole, 3, 20, -1));
        for (int p = 0; p < whole.planes_size(); ++p)
            seeds.write(stem + "_plane" + std::to_string(p) + "_cut.xplane.pb",
                        cutXSpace(whole, 8, 50, p));
    }
}

// A Chrome trace cut down to its first `events` events, every metadata ("M") event and every
// top-level field but traceEvents, written as plain JSON.
std::string cutTrace(simdjson::dom::element trace, size_t events) {
    simdjson::dom::object top;
    if (trace.get(top)) return {};
    std::string out = "{";
    for (const auto field : top) {
        if (out.size() > 1) out += ",";
        out += "\"" + std::string(field.key) + "\":";
        simdjson::dom::array list;
        if (field.key != "traceEvents" || field.value.get(list)) {
            out += simdjson::minify(field.value);
            continue;
        }
        out += "[";
        size_t kept = 0, seen = 0;
        for (const auto e : list) {
            std::string_view ph;
            const bool metadata = !e["ph"].get(ph) && ph == "M";
            if (!metadata && seen++ >= events) continue;
            out += (kept++ ? "," : "") + simdjson::minify(e);
        }
        out += "]";
    }
    return out + "}";
}

void kinetoSeeds(Seeds& seeds, const std::string& realdata) {
    for (const uint64_t events : {40, 300}) {
        const LoadResult r = loadXSpaceBytes(syntheticXSpace(events, 1), "seed", nullptr, 1);
        const fs::path path = seeds.dir / ("synthetic_" + std::to_string(events) + ".json");
        if (r.ok() && writeChromeTrace(*r.profile, path.string()).empty()) ++seeds.written;
    }
    simdjson::dom::parser parser;
    for (const fs::path& path : realFiles(realdata, ".json.gz")) {
        const std::string gz = readFile(path);
        GunzipBuffer json;
        size_t size = 0;
        if (!gunzip({reinterpret_cast<const uint8_t*>(gz.data()), gz.size()}, json, size,
                    simdjson::SIMDJSON_PADDING)
                 .empty())
            continue;
        simdjson::dom::element trace;
        if (parser.parse(json.data(), size, false).get(trace)) continue;
        const std::string stem = path.stem().stem().string();
        for (const size_t events : {30, 300})
            seeds.write(stem + "_first" + std::to_string(events) + ".json",
                        cutTrace(trace, events));
    }
}

void hloSeeds(Seeds& seeds, const std::string& realdata) {
    int n = 0;
    for (const fs::path& path : realFiles(realdata, ".xplane.pb")) {
        tensorflow::profiler::XSpace space;
        if (!space.ParseFromString(readFile(path))) continue;
        for (const auto& plane : space.planes()) {
            if (plane.name() != "/host:metadata") continue;
            int64_t protoKey = -1;
            for (const auto& [id, stat] : plane.stat_metadata())
                if (stat.name() == "Hlo Proto") protoKey = id;
            for (const auto& [id, meta] : plane.event_metadata())
                for (const auto& stat : meta.stats())
                    if (stat.metadata_id() == protoKey && stat.has_bytes_value())
                        seeds.write("hlo_" + std::to_string(n++) + ".pb", stat.bytes_value());
        }
    }
}

// A record file of `records`, `perFrame` records a frame.
void writeRecords(Seeds& seeds, const std::string& name,
                  const std::vector<capture::Record>& records, size_t perFrame) {
    const fs::path path = seeds.dir / name;
    {
        capture::RecordFileWriter writer(path.string(), 1);
        for (size_t i = 0; i < records.size(); ++i) {
            writer.add(records[i]);
            if ((i + 1) % perFrame == 0) writer.flush();
        }
        if (!writer.flush()) {
            std::fprintf(stderr, "fuzz_seeds: cannot write %s\n", path.c_str());
            seeds.failed = true;
        }
    }
    ++seeds.written;
}

void recordSeeds(Seeds& seeds, const std::string& realdata) {
    using namespace stepscope::capture;
    // One process of every record kind, two steps, on two streams of one GPU (times in ns).
    const uint64_t t = 1'700'000'000'000'000'000;
    std::vector<Record> small = {
        ProcessRecord{7, "seed-host", "train", 1'700'000'000'000'000'000, t},
        ThreadRecord{11, "main"},
        DeviceRecord{0, "GPU", 132, 1'980'000, 141ull << 30, 4'800'000'000'000, 9, 0}};
    for (uint64_t step = 0; step < 2; ++step) {
        const uint64_t s = t + 1000 + step * 10'000;
        small.push_back(NvtxRangeRecord{s, s + 9000, 11, "step " + std::to_string(step)});
        small.push_back(ApiRecord{s + 10, s + 200, 11, uint32_t(3 * step + 1),
                                  ApiRecord::Domain::Runtime, 211, "cudaLaunchKernel"});
        KernelRecord k;
        k.startNs = s + 300;
        k.endNs = s + 2000;
        k.correlationId = uint32_t(3 * step + 1);
        k.streamId = 7;
        k.grid[0] = 128;
        k.block[0] = 256;
        k.registersPerThread = 32;
        k.name = "gemm_kernel";
        small.push_back(k);
        small.push_back(MemcpyRecord{s + 2100, s + 2600, 0, 1, 8, uint32_t(3 * step + 2), 1 << 20,
                                     MemcpyKind::HtoD, 1, 2, 0, 0});
        small.push_back(MemsetRecord{s + 2700, s + 2800, 0, 1, 8, uint32_t(3 * step + 3), 4096, 0});
        small.push_back(MemoryRecord{s + 50, 0, 7, 0, 0x7f0000 + step, 1 << 20, true});
        small.push_back(MemoryRecord{s + 8000, 0, 7, 0, 0x7f0000 + step, 1 << 20, false});
    }
    small.push_back(OverheadRecord{t + 100, t + 150, "buffer flush"});
    small.push_back(DroppedRecord{1, 3});
    writeRecords(seeds, "synthetic_one_frame.rec", small, small.size());
    writeRecords(seeds, "synthetic_frames_of_4.rec", small, 4);
    for (const fs::path& path : realFiles(realdata, ".rec")) {
        const RecordFileContents c = readRecordFile(path.string());
        if (!c.ok()) continue;
        const std::string stem = path.stem().string();
        for (const size_t n : {20, 200})
            writeRecords(
                seeds, stem + "_first" + std::to_string(n) + ".rec",
                {c.records.begin(), c.records.begin() + ptrdiff_t(std::min(n, c.records.size()))},
                n / 4);
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: fuzz_seeds TARGET OUTDIR [REALDATA]\n");
        return 2;
    }
    const std::string target = argv[1];
    const std::string realdata = argc == 4 ? argv[3] : "";
    const std::map<std::string, std::function<void(Seeds&, const std::string&)>> makers = {
        {"xspace_importer", xspaceSeeds},
        {"kineto_importer", kinetoSeeds},
        {"hlo_proto", hloSeeds},
        {"record_file", recordSeeds}};
    const auto maker = makers.find(target);
    if (maker == makers.end()) {
        std::fprintf(stderr, "fuzz_seeds: unknown target %s\n", target.c_str());
        return 2;
    }
    Seeds seeds{argv[2]};
    std::error_code ec;
    fs::create_directories(seeds.dir, ec);
    maker->second(seeds, realdata);
    std::printf("fuzz_seeds: %d %s seeds in %s\n", seeds.written, target.c_str(), argv[2]);
    return seeds.failed ? 1 : 0;
}
