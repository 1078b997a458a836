#include "model/AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace stepscope {

namespace {

bool writeAll(int fd, const char* p, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= size_t(w);
    }
    return true;
}

} // namespace

std::string writeFileAtomically(const std::string& path, std::string_view bytes) {
    static std::atomic<uint64_t> counter{0};
    const std::string temp =
        path + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    const auto failed = [&path](int error) {
        return "cannot write " + path + ": " + std::strerror(error);
    };
    struct stat existing {};
    const bool replaces = ::stat(path.c_str(), &existing) == 0;
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return failed(errno);
    bool ok = (!replaces || ::fchmod(fd, existing.st_mode & 07777) == 0) &&
              writeAll(fd, bytes.data(), bytes.size()) && ::fsync(fd) == 0;
    int error = errno;
    if (::close(fd) != 0 && ok) {
        ok = false;
        error = errno;
    }
    if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
        ok = false;
        error = errno;
    }
    if (!ok) {
        ::unlink(temp.c_str());
        return failed(error);
    }
    return {};
}

} // namespace stepscope
