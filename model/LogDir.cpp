#include "model/LogDir.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <map>
#include <system_error>

namespace stepscope {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSuffix = ".xplane.pb";

// Host file suffixes, XSpace first. PyTorch's profiler (and its TensorBoard plugin) names its
// traces `<worker>.<ts>.pt.trace.json[.gz]`; other tools write `<name>.json.gz`.
constexpr std::string_view kSuffixes[] = {kSuffix,          ".pt.trace.json.gz", ".pt.trace.json",
                                          ".trace.json.gz", ".trace.json",       ".json.gz"};

// What TensorFlow 2.2-2.4 wrote beside its traces in a run folder: tool caches, not traces.
constexpr std::string_view kToolCaches[] = {
    ".memory_profile", ".overview_page", ".input_pipeline", ".tensorflow_stats",
    ".kernel_stats",   ".pod_viewer",    ".op_profile"};

// The host name of a profile file, or empty if the name is not one of a profile.
std::string hostOf(const std::string& name) {
    for (std::string_view s : kSuffixes) {
        if (name.size() <= s.size() || !name.ends_with(s)) continue;
        std::string host = name.substr(0, name.size() - s.size());
        for (std::string_view t : kToolCaches)
            if (host.ends_with(t)) return {};
        return host;
    }
    return {};
}

bool isHostFile(const fs::directory_entry& e) {
    std::error_code ec;
    if (!e.is_regular_file(ec)) return false;
    return !hostOf(e.path().filename().string()).empty();
}

// The host files directly inside `dir`, sorted by host name; sets `error` if the folder cannot
// be read.
std::vector<HostFile> hostFilesIn(const fs::path& dir, std::string& error) {
    std::vector<HostFile> hosts;
    std::error_code ec;
    fs::directory_iterator it(dir, ec), end;
    if (ec) {
        error = "cannot read folder " + dir.string() + ": " + ec.message();
        return hosts;
    }
    for (; it != end; it.increment(ec)) {
        if (ec) break;
        if (!isHostFile(*it)) continue;
        const std::string name = it->path().filename().string();
        hosts.push_back({hostOf(name), it->path().string()});
    }
    // A host with an .xplane.pb is that file; a JSON trace of the same host (TensorFlow 2.x
    // wrote `<host>.trace.json.gz` beside it) repeats it.
    std::sort(hosts.begin(), hosts.end(), [](const HostFile& a, const HostFile& b) {
        const bool ax = a.path.ends_with(kSuffix), bx = b.path.ends_with(kSuffix);
        return a.host != b.host ? a.host < b.host : ax > bx;
    });
    hosts.erase(std::unique(hosts.begin(), hosts.end(),
                            [](const HostFile& a, const HostFile& b) { return a.host == b.host; }),
                hosts.end());
    return hosts;
}

// PyTorch's tensorboard_trace_handler names each profiling span's trace
// `<worker>.<span>.pt.trace.json[.gz]`, the span a timestamp; the PyTorch TensorBoard plugin reads
// the number as the span (tb_plugin/torch_tb_profiler/consts.py WORKER_PATTERN). Empty span when
// the name has none.
std::pair<std::string, std::string> workerAndSpan(const std::string& fileName) {
    for (std::string_view s :
         {std::string_view(".pt.trace.json.gz"), std::string_view(".pt.trace.json")}) {
        if (fileName.size() <= s.size() || !fileName.ends_with(s)) continue;
        const std::string stem = fileName.substr(0, fileName.size() - s.size());
        const size_t dot = stem.rfind('.');
        if (dot == std::string::npos || dot == 0 || dot + 1 == stem.size()) return {stem, {}};
        const std::string span = stem.substr(dot + 1);
        if (!std::all_of(span.begin(), span.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return {stem, {}};
        return {stem.substr(0, dot), span};
    }
    return {};
}

// A folder holding traces of several spans of the same job is several profiles, not one with a
// host per file: one run per span, named `<run>/<span>` (newest first, after sorting), its hosts
// the workers. Files without a span stay in the folder's own run. Folders with at most one span
// are left as they are.
std::vector<ProfileRun> splitSpans(ProfileRun run) {
    std::map<std::string, std::vector<HostFile>> spans;
    std::vector<HostFile> rest;
    for (const HostFile& h : run.hosts) {
        auto [worker, span] = workerAndSpan(fs::path(h.path).filename().string());
        if (span.empty())
            rest.push_back(h);
        else
            spans[span].push_back({worker, h.path});
    }
    if (spans.size() < 2) return {std::move(run)};
    std::vector<ProfileRun> out;
    for (auto& [span, files] : spans) {
        std::sort(files.begin(), files.end(),
                  [](const HostFile& a, const HostFile& b) { return a.host < b.host; });
        out.push_back({run.name + "/" + span, run.path, std::move(files)});
    }
    if (!rest.empty()) out.push_back({run.name, run.path, std::move(rest)});
    return out;
}

// Runs are the sub-folders of `profileDir` that hold host files.
std::vector<ProfileRun> runsIn(const fs::path& profileDir, std::string& error) {
    std::vector<ProfileRun> runs;
    std::error_code ec;
    fs::directory_iterator it(profileDir, ec), end;
    if (ec) {
        error = "cannot read folder " + profileDir.string() + ": " + ec.message();
        return runs;
    }
    for (; it != end; it.increment(ec)) {
        if (ec) break;
        if (!it->is_directory(ec)) continue;
        std::string ignored;
        std::vector<HostFile> hosts = hostFilesIn(it->path(), ignored);
        if (hosts.empty()) continue;
        for (ProfileRun& r :
             splitSpans({it->path().filename().string(), it->path().string(), std::move(hosts)}))
            runs.push_back(std::move(r));
    }
    // TensorBoard names runs by their start time (e.g. 2020_12_03_14_05_11), so descending name
    // order lists the newest run first.
    std::sort(runs.begin(), runs.end(),
              [](const ProfileRun& a, const ProfileRun& b) { return a.name > b.name; });
    return runs;
}

} // namespace

Discovery discoverProfiles(const std::string& path) {
    Discovery d;
    std::error_code ec;
    const fs::path p(path);
    const fs::file_status status = fs::status(p, ec);
    if (ec || !fs::exists(status)) {
        d.error = "no such file or folder: " + path;
        return d;
    }
    if (fs::is_regular_file(status)) {
        const fs::path dir = p.parent_path();
        std::string stem = hostOf(p.filename().string());
        if (stem.empty()) stem = p.filename().string();
        if (stem.ends_with(".json")) stem.resize(stem.size() - 5);
        d.runs.push_back({dir.filename().string(), dir.string(), {{stem, p.string()}}});
        return d;
    }
    if (!fs::is_directory(status)) {
        d.error = path + " is neither a file nor a folder";
        return d;
    }
    // LOGDIR -> LOGDIR/plugins/profile; LOGDIR/plugins/profile and run folders are taken as is.
    fs::path profileDir = p / "plugins" / "profile";
    if (!fs::is_directory(profileDir, ec)) profileDir = p;
    d.runs = runsIn(profileDir, d.error);
    if (d.runs.empty() && d.error.empty()) {
        std::vector<HostFile> hosts = hostFilesIn(p, d.error);
        if (!hosts.empty()) {
            d.runs = splitSpans({p.filename().string(), p.string(), std::move(hosts)});
            std::sort(d.runs.begin(), d.runs.end(),
                      [](const ProfileRun& a, const ProfileRun& b) { return a.name > b.name; });
        }
    }
    if (d.runs.empty() && d.error.empty())
        d.error = "no profiles found in " + path +
                  " (expected LOGDIR/plugins/profile/<run>/<host>.xplane.pb, a run folder, an "
                  ".xplane.pb file, or a PyTorch/Chrome trace .json or .json.gz)";
    return d;
}

std::string localTimeRunName() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y_%m_%d_%H_%M_%S", &tm);
    return text;
}

} // namespace stepscope
