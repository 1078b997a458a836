#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace stepscope {

// An unnamed temporary file that a writer moves encoded bytes to when they grow too large to
// keep in memory, and reads back when it assembles its output. The file is unlinked as soon as it
// is created, so nothing is left behind however the program ends; its space is freed on close.
class SpillFile {
public:
    // Creates the file in `folder` (pick one on the output's file system: the spilled bytes are
    // about the output's size). Null, with `error` set, if it cannot be created.
    static std::unique_ptr<SpillFile> create(const std::string& folder, std::string& error);
    ~SpillFile();
    SpillFile(const SpillFile&) = delete;
    SpillFile& operator=(const SpillFile&) = delete;

    // Appends `size` bytes at the end; `offset` receives where they went. False (and error() set)
    // if the write failed, for instance on a full disk.
    bool append(const uint8_t* data, size_t size, uint64_t& offset);
    // Reads back bytes written before. False (and error() set) on a failed or short read.
    bool read(uint64_t offset, uint8_t* out, size_t size);
    // The first failure, naming the folder and the system's reason; empty while all went well.
    const std::string& error() const { return error_; }

private:
    SpillFile(int fd, std::string folder)
        : fd_(fd)
        , folder_(std::move(folder)) {}
    bool fail(const char* what);

    int fd_;
    std::string folder_;
    uint64_t size_ = 0;
    std::string error_;
};

} // namespace stepscope
