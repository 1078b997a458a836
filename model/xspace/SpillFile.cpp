#include "model/xspace/SpillFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace stepscope {

std::unique_ptr<SpillFile> SpillFile::create(const std::string& folder, std::string& error) {
    std::string name = folder + "/.stepscope-spill-XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd < 0) {
        error = "cannot create a temporary file in " + folder + ": " + std::strerror(errno);
        return nullptr;
    }
    ::unlink(name.c_str());
    return std::unique_ptr<SpillFile>(new SpillFile(fd, folder));
}

SpillFile::~SpillFile() {
    ::close(fd_);
}

bool SpillFile::fail(const char* what) {
    if (error_.empty())
        error_ = std::string("cannot ") + what + " the temporary file in " + folder_ + ": " +
                 (errno ? std::strerror(errno) : "short transfer");
    return false;
}

bool SpillFile::append(const uint8_t* data, size_t size, uint64_t& offset) {
    if (!error_.empty()) return false;
    offset = size_;
    for (size_t done = 0; done < size;) {
        errno = 0;
        const ssize_t n = ::pwrite(fd_, data + done, size - done, off_t(size_ + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return fail("write to");
        done += size_t(n);
    }
    size_ += size;
    return true;
}

bool SpillFile::read(uint64_t offset, uint8_t* out, size_t size) {
    if (!error_.empty()) return false;
    for (size_t done = 0; done < size;) {
        errno = 0;
        const ssize_t n = ::pread(fd_, out + done, size - done, off_t(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return fail("read from");
        done += size_t(n);
    }
    return true;
}

} // namespace stepscope
