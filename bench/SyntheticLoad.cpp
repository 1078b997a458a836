#include "bench/SyntheticLoad.h"

#include "bench/TempDir.h"

namespace stepscope::bench {

LoadResult loadSyntheticProfile(const SyntheticOptions& options, const std::string& hostName) {
    LoadResult result;
    const TempDir dir;
    if (!dir.ok()) {
        result.error = dir.error();
        return result;
    }
    const std::string path = dir.filePath("synthetic.xplane.pb");
    result.error = writeSyntheticXSpace(options, hostName, path);
    if (!result.error.empty()) return result;
    return loadHosts({{hostName, path}});
}

} // namespace stepscope::bench
