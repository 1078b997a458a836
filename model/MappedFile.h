#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>

namespace stepscope {

// A read-only memory map of a whole file that survives the file shrinking under it.
//
// A profiler that rewrites its file while Stepscope reads it (open with O_TRUNC, then write)
// takes away the pages behind the mapping; touching them raises SIGBUS, which would kill the
// program. While a MappedFile lives, a process-wide SIGBUS handler (installed once, chaining to
// any handler before it for faults elsewhere) replaces each such page with zeros and marks the
// file as shrunk; the read that faulted then continues, sees zeros, and the reader finds
// garbage or the end. Callers check shrunk() after reading and report the file as changed.
// Signal handlers are process-wide, so this is the one place in model/ with global state.
class MappedFile {
public:
    explicit MappedFile(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    // Why the file could not be mapped ("is a folder, not a file", errno text); empty if fine.
    const std::string& error() const { return error_; }
    std::span<const uint8_t> bytes() const { return {data_, size_}; }
    // True once a read of the mapping found the file shorter than when it was mapped.
    bool shrunk() const;
    // Bytes past the end of a mapping of `size` bytes that may still be read: the rest of its
    // last page, which the kernel fills with zeros (0 when the size is a whole number of pages).
    static size_t readableAfterEnd(size_t size);
    // The file's descriptor, open (read-only) while the mapping lives, so that its pages can be
    // mapped elsewhere too (ProfileCache); -1 when nothing is mapped.
    int descriptor() const { return fd_; }

private:
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    int slot_ = -1; // guard slot, -1 when unguarded (nothing mapped)
    int fd_ = -1;
    std::string error_;
};

} // namespace stepscope
