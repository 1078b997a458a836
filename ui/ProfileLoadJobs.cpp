#include "ui/ProfileLoadJobs.h"

#include "model/synthetic/SyntheticProfile.h"

#include <algorithm>

namespace stepscope {

namespace {

void loadInto(LoadOutcome& out, const Progress& progress, const ProfileCache* cache) {
    CachedLoad loaded = loadHostsCached(out.selection.hostFiles(), cache, &progress);
    out.result = std::move(loaded.result);
    out.cacheKey = std::move(loaded.key);
    out.fromCache = loaded.fromCache;
}

} // namespace

LoadOutcome discoverAndLoad(const QString& path, const Progress& progress, const QString& run,
                            const ProfileCache* cache) {
    LoadOutcome out;
    out.selection.source = path;
    progress.report("Looking for profiles", 0.0);
    out.selection.discovery = discoverProfiles(path.toStdString());
    if (!out.selection.discovery.ok()) {
        out.result.error = out.selection.discovery.error.empty()
                               ? "No profiles found under " + path.toStdString()
                               : out.selection.discovery.error;
        return out;
    }
    const std::vector<ProfileRun>& runs = out.selection.discovery.runs;
    const auto named = std::find_if(runs.begin(), runs.end(), [&run](const ProfileRun& r) {
        return r.name == run.toStdString();
    });
    out.selection.run = named == runs.end() ? 0 : int(named - runs.begin());
    out.selection.host = defaultHost(runs[size_t(out.selection.run)]);
    if (progress.cancelled()) {
        out.result.cancelled = true;
        return out;
    }
    loadInto(out, progress, cache);
    return out;
}

LoadOutcome loadSelection(const ProfileSelection& selection, const Progress& progress,
                          const ProfileCache* cache) {
    LoadOutcome out;
    out.selection = selection;
    loadInto(out, progress, cache);
    return out;
}

LoadOutcome loadDemo(const Progress& progress) {
    // Big enough to look like a real training step mix, small enough to appear in about a second.
    SyntheticOptions options;
    options.events = 50000;
    options.gpus = 2;
    LoadOutcome out;
    out.selection.demo = true;
    progress.report("Generating the demo profile", 0.0);
    const std::vector<uint8_t> bytes = generateSyntheticXSpace(options, kDemoHostName);
    if (progress.cancelled()) {
        out.result.cancelled = true;
        return out;
    }
    out.result = loadXSpaceBytes(bytes, kDemoHostName, &progress);
    return out;
}

} // namespace stepscope
