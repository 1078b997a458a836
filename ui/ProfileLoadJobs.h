#pragma once

#include <QString>

#include "model/ProfileCache.h"
#include "model/ProfileLoader.h"
#include "model/Progress.h"
#include "ui/ProfileSelection.h"

namespace stepscope {

// The result of one background load: the profile (or error) and the selection it belongs to.
struct LoadOutcome {
    ProfileSelection selection;
    LoadResult result;
    CacheKey cacheKey;      // the sources' key when a cache was given
    bool fromCache = false; // read from the profile cache, not the sources
};

// The host name the demo profile is generated under.
inline constexpr const char* kDemoHostName = "localhost";

// The loads the window runs in a worker. Each runs on the calling thread and honours cancel().

// Discovers the profiles under a path the user gave (log dir, plugins/profile, run folder or one
// .xplane.pb) and loads the run named `run` (when given and found; else the newest run) with its
// default host. With a cache, a valid cached copy of the hosts is read instead of the sources.
LoadOutcome discoverAndLoad(const QString& path, const Progress& progress,
                            const QString& run = QString(), const ProfileCache* cache = nullptr);
// Loads the hosts a selection names (after the user picked another run or host).
LoadOutcome loadSelection(const ProfileSelection& selection, const Progress& progress,
                          const ProfileCache* cache = nullptr);
// Generates the built-in synthetic profile in memory and loads it.
LoadOutcome loadDemo(const Progress& progress);

} // namespace stepscope
