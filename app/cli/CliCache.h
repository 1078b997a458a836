#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/ProfileCache.h"
#include "model/ProfileLoader.h"

namespace stepscope::cli {

// The profile cache the CLI shares with the GUI: QStandardPaths' cache location of the GUI
// (Linux: ~/.cache/Stepscope/stepscope/profiles, under $XDG_CACHE_HOME when set). Problems with
// an entry (ignored, not written) are printed on stderr prefixed with `who`.
std::unique_ptr<ProfileCache> openCliCache(const std::string& who);
std::string cliCacheFolder();

// loadPath() through the cache: the newest run's hosts (or the single file) from the cache when
// it holds them, else from the sources, then written to the cache for the next time. A null
// cache (--no-cache) loads the sources only.
LoadResult loadPathCached(const std::string& path, const ProfileCache* cache);

// Removes `--no-cache` from args; true if it was there.
bool takeNoCacheFlag(std::vector<std::string>& args);

} // namespace stepscope::cli
