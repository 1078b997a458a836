#include "app/cli/CliCache.h"

#include <QStandardPaths>

#include <algorithm>
#include <cstdio>

namespace stepscope::cli {

std::string cliCacheFolder() {
    // The GUI's QStandardPaths::CacheLocation is GenericCacheLocation/<organization>/<app>, with
    // organization "Stepscope" and app "stepscope" (app/gui_main.cpp); the CLI names itself
    // differently, so it spells the GUI's folder out.
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation).toStdString() +
           "/Stepscope/stepscope/profiles";
}

std::unique_ptr<ProfileCache> openCliCache(const std::string& who) {
    return std::make_unique<ProfileCache>(
        cliCacheFolder(), STEPSCOPE_VERSION, ProfileCache::kDefaultCapBytes,
        [who](bool problem, const std::string& line) {
            if (problem) std::fprintf(stderr, "%s: %s\n", who.c_str(), line.c_str());
        });
}

LoadResult loadPathCached(const std::string& path, const ProfileCache* cache) {
    if (!cache) return loadPath(path);
    const Discovery d = discoverProfiles(path);
    if (!d.ok()) {
        LoadResult result;
        result.error = d.error;
        return result;
    }
    CachedLoad loaded = loadHostsCached(d.runs.front().hosts, cache);
    if (loaded.result.ok() && !loaded.fromCache) cache->store(loaded.key, *loaded.result.profile);
    return std::move(loaded.result);
}

bool takeNoCacheFlag(std::vector<std::string>& args) {
    const auto it = std::remove(args.begin(), args.end(), std::string("--no-cache"));
    const bool found = it != args.end();
    args.erase(it, args.end());
    return found;
}

} // namespace stepscope::cli
