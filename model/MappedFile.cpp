#include "model/MappedFile.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stepscope {

namespace {

// One guarded mapping: [begin, end) and whether a fault inside it found the file shorter.
struct GuardSlot {
    std::atomic<uintptr_t> begin{0};
    std::atomic<uintptr_t> end{0};
    std::atomic<bool> shrunk{false};
};

constexpr int kSlots = 64;
GuardSlot g_slots[kSlots];
struct sigaction g_previous {};
uintptr_t g_pageSize = 4096;
std::once_flag g_installed;

void forwardToPrevious(int signal, siginfo_t* info, void* context) {
    if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
        g_previous.sa_sigaction(signal, info, context);
        return;
    }
    if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
        g_previous.sa_handler != nullptr) {
        g_previous.sa_handler(signal);
        return;
    }
    // The default action: die of SIGBUS, as without this handler.
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

void onSigbus(int signal, siginfo_t* info, void* context) {
    const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
    for (GuardSlot& slot : g_slots) {
        const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
        if (begin == 0 || address < begin || address >= slot.end.load(std::memory_order_acquire))
            continue;
        // The file no longer has data behind this page: put a page of zeros in its place (mmap
        // is a plain system call on Linux, safe here). Returning retries the faulting read.
        void* page = reinterpret_cast<void*>(address & ~(g_pageSize - 1));
        if (::mmap(page, g_pageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
            MAP_FAILED) {
            slot.shrunk.store(true, std::memory_order_release);
            return;
        }
    }
    forwardToPrevious(signal, info, context);
}

void installHandler() {
    g_pageSize = uintptr_t(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = onSigbus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previous);
}

int claimSlot(const uint8_t* data, size_t size) {
    std::call_once(g_installed, installHandler);
    const auto begin = reinterpret_cast<uintptr_t>(data);
    for (int i = 0; i < kSlots; ++i) {
        uintptr_t expected = 0;
        GuardSlot& slot = g_slots[i];
        if (!slot.begin.compare_exchange_strong(expected, begin, std::memory_order_acq_rel))
            continue;
        slot.shrunk.store(false, std::memory_order_relaxed);
        slot.end.store(begin + size, std::memory_order_release);
        return i;
    }
    return -1;
}

} // namespace

MappedFile::MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error_ = std::strerror(errno);
        return;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        error_ = std::strerror(errno);
    else if (S_ISDIR(st.st_mode))
        error_ = "is a folder, not a file";
    else if (!S_ISREG(st.st_mode))
        error_ = "is not a regular file";
    else if (st.st_size > 0) {
        void* p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            error_ = std::strerror(errno);
        } else {
            data_ = static_cast<const uint8_t*>(p);
            size_ = size_t(st.st_size);
            slot_ = claimSlot(data_, size_);
            if (slot_ < 0) {
                // Every guard is taken (64 files mapped at once): refuse rather than risk SIGBUS.
                ::munmap(p, size_);
                data_ = nullptr;
                size_ = 0;
                error_ = "too many profile files are open at once";
            } else {
                ::madvise(p, size_, MADV_SEQUENTIAL);
            }
        }
    }
    if (data_)
        fd_ = fd;
    else
        ::close(fd);
}

MappedFile::~MappedFile() {
    if (!data_) return;
    ::close(fd_);
    ::munmap(const_cast<uint8_t*>(data_), size_);
    GuardSlot& slot = g_slots[slot_];
    slot.end.store(0, std::memory_order_release);
    slot.begin.store(0, std::memory_order_release);
}

bool MappedFile::shrunk() const {
    return slot_ >= 0 && g_slots[slot_].shrunk.load(std::memory_order_acquire);
}

size_t MappedFile::readableAfterEnd(size_t size) {
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    return size % page == 0 ? 0 : page - size % page;
}

} // namespace stepscope
