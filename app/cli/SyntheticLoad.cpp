#include "app/cli/SyntheticLoad.h"

#include <QTemporaryDir>

namespace stepscope::cli {

LoadResult loadSyntheticProfile(const SyntheticOptions& options, const std::string& hostName) {
    LoadResult result;
    QTemporaryDir dir;
    if (!dir.isValid()) {
        result.error = "cannot create a temporary folder: " + dir.errorString().toStdString();
        return result;
    }
    const std::string path = dir.filePath("synthetic.xplane.pb").toStdString();
    result.error = writeSyntheticXSpace(options, hostName, path);
    if (!result.error.empty()) return result;
    return loadHosts({{hostName, path}});
}

} // namespace stepscope::cli
