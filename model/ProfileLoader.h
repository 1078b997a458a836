#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/LogDir.h"
#include "model/Profile.h"
#include "model/Progress.h"

namespace stepscope {

struct LoadResult {
    std::shared_ptr<const Profile> profile; // null on error or cancel
    std::string error;                      // names the file and the problem
    bool cancelled = false;
    bool ok() const { return profile != nullptr; }
};

// Loads one or more hosts of a run into one Profile (hosts side by side, sharing one time base
// so they line up). Runs on the calling thread, which it blocks; call it from a worker. XSpace
// events are decoded on up to `threads` threads (0: every core this process may use); the
// profile is the same for any count. Progress is reported per file and stage; cancel() on the
// Progress stops it. Of several hosts, one that cannot be read does not fail the load: it is kept
// as a host without planes whose Host::errors says "cannot be loaded: <file>: <problem>"; the
// load fails only when no host can be read.
LoadResult loadHosts(const std::vector<HostFile>& hosts, const Progress* progress = nullptr,
                     unsigned threads = 0);

// The hosts of `profile` that loadHosts() kept without reading them: (host index, "<file>:
// <problem>"), in host order; empty when every host was read.
std::vector<std::pair<uint32_t, std::string>> unreadableHosts(const Profile& profile);

// Loads an XSpace held in memory (the demo profile, tests).
LoadResult loadXSpaceBytes(std::span<const uint8_t> bytes, const std::string& hostName,
                           const Progress* progress = nullptr, unsigned threads = 0);

// Convenience for the CLI and tests: discovers `path` and loads the newest run's hosts (all of
// them), or the single file.
LoadResult loadPath(const std::string& path, const Progress* progress = nullptr,
                    unsigned threads = 0);

} // namespace stepscope
