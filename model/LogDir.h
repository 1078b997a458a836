#pragma once

#include <string>
#include <vector>

namespace stepscope {

// One `<host>.xplane.pb` (or PyTorch/Chrome trace `<host>.pt.trace.json[.gz]`, `.json.gz`) of a
// run.
struct HostFile {
    std::string host; // file name without its suffix
    std::string path;
};

// One run folder: LOGDIR/plugins/profile/<run>/.
struct ProfileRun {
    std::string name;
    std::string path;
    std::vector<HostFile> hosts; // sorted by host name
};

struct Discovery {
    std::vector<ProfileRun> runs; // newest first (run names are timestamps; sorted descending)
    std::string error;            // set when nothing loadable was found; names the path
    bool ok() const { return error.empty() && !runs.empty(); }
};

// Finds the profiles under a path given by the user, as TensorBoard would:
//   LOGDIR (has plugins/profile/<run>/), LOGDIR/plugins/profile, one run folder, or a single
//   .xplane.pb or trace JSON file (then one run named after its folder, with that one host).
// Host files: `.xplane.pb`, `.pt.trace.json[.gz]`, `.trace.json[.gz]`, `.json.gz` (not
// TensorFlow's tool caches such as `.memory_profile.json.gz`); where a host has both an
// `.xplane.pb` and a JSON trace, the `.xplane.pb` is used.
Discovery discoverProfiles(const std::string& path);

// A new run's name as TensorBoard's profiler names runs: the local time, YYYY_MM_DD_HH_MM_SS
// (newest sorts first).
std::string localTimeRunName();

} // namespace stepscope
