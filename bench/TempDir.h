#pragma once

#include <string>

namespace stepscope::bench {

// A fresh folder under $TMPDIR (else /tmp), removed with everything in it when this goes away.
// The benchmarks write their synthetic profiles there.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    bool ok() const { return error_.empty(); }
    const std::string& error() const { return error_; } // why it could not be created
    const std::string& path() const { return path_; }
    std::string filePath(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
    std::string error_;
};

} // namespace stepscope::bench
