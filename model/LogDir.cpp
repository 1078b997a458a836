#include "model/LogDir.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace stepscope {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSuffix = ".xplane.pb";

bool isHostFile(const fs::directory_entry& e) {
    std::error_code ec;
    if (!e.is_regular_file(ec)) return false;
    const std::string name = e.path().filename().string();
    return name.size() > kSuffix.size() && name.ends_with(kSuffix);
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
        hosts.push_back({name.substr(0, name.size() - kSuffix.size()), it->path().string()});
    }
    std::sort(hosts.begin(), hosts.end(),
              [](const HostFile& a, const HostFile& b) { return a.host < b.host; });
    return hosts;
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
        runs.push_back({it->path().filename().string(), it->path().string(), std::move(hosts)});
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
        std::string stem = p.filename().string();
        if (stem.ends_with(kSuffix)) stem.resize(stem.size() - kSuffix.size());
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
        if (!hosts.empty()) d.runs.push_back({p.filename().string(), p.string(), std::move(hosts)});
    }
    if (d.runs.empty() && d.error.empty())
        d.error = "no profiles found in " + path +
                  " (expected LOGDIR/plugins/profile/<run>/<host>.xplane.pb, a run folder, or an "
                  ".xplane.pb file)";
    return d;
}

} // namespace stepscope
