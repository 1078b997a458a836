#pragma once

#include <string>
#include <vector>

namespace stepscope {

// One `<host>.xplane.pb` of a run.
struct HostFile {
    std::string host; // file name without `.xplane.pb`
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
//   .xplane.pb file (then one run named after its folder, with that one host).
Discovery discoverProfiles(const std::string& path);

} // namespace stepscope
