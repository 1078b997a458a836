#include "model/HugePages.h"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define STEPSCOPE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STEPSCOPE_ASAN 1
#endif
#endif
#ifdef STEPSCOPE_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace stepscope {

namespace {

constexpr uintptr_t kHuge = kHugePageBytes;

#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
constexpr bool kPageSizeAdvice = true;
constexpr int kHugeAdvice = MADV_HUGEPAGE, kSmallAdvice = MADV_NOHUGEPAGE;
#else
constexpr bool kPageSizeAdvice = false; // no transparent huge pages to ask for
constexpr int kHugeAdvice = 0, kSmallAdvice = 0;
#endif

uintptr_t roundUpToPage(uintptr_t bytes) {
    static const auto page = uintptr_t(::sysconf(_SC_PAGESIZE));
    return (bytes + page - 1) / page * page;
}

// madvise over the whole 2 MiB pages inside [p, p + bytes), if any.
void adviseWholeHugePages(const void* p, size_t bytes, int advice) {
    const auto at = reinterpret_cast<uintptr_t>(p);
    const uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (at + bytes) & ~(kHuge - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}

HugePageChoice chooseHugePages() {
    if (!kPageSizeAdvice) return {};
    if (const char* set = std::getenv("STEPSCOPE_HUGE_PAGES")) {
        if (std::strcmp(set, "1") == 0 || std::strcmp(set, "0") == 0)
            return {set[0] == '1', HugePageSource::Environment};
    }
    std::string order;
    std::ifstream("/sys/module/page_reporting/parameters/page_reporting_order") >> order;
    if (pageReportingActive(order)) return {false, HugePageSource::PageReporting};
    return {true, HugePageSource::Default};
}

} // namespace

bool pageReportingActive(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
    if (text.empty()) return false;
    int order = -1;
    const char* last = text.data() + text.size();
    const auto [end, error] = std::from_chars(text.data(), last, order);
    return error == std::errc() && end == last && order >= 0 && order <= 10;
}

const HugePageChoice& hugePageChoice() {
    static const HugePageChoice choice = chooseHugePages();
    return choice;
}

void advisePageSize(const void* p, size_t bytes) {
    const HugePageChoice& c = hugePageChoice();
    if (c.source != HugePageSource::None)
        adviseWholeHugePages(p, bytes, c.use ? kHugeAdvice : kSmallAdvice);
}

void releaseHugePages(const void* p, size_t bytes) {
    adviseWholeHugePages(p, bytes, MADV_DONTNEED);
}

void* mapHugePageBytes(size_t bytes) {
    // Map a huge page more than asked, then give back what lies before the first 2 MiB boundary
    // and after the column's last page.
    const uintptr_t keep = roundUpToPage(bytes);
    if (keep < bytes || keep > SIZE_MAX - kHuge) throw std::bad_alloc();
    const uintptr_t length = keep + kHuge;
    void* mapped =
        ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    const auto at = reinterpret_cast<uintptr_t>(mapped);
    const uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1);
    if (begin > at) ::munmap(mapped, begin - at);
    if (at + length > begin + keep)
        ::munmap(reinterpret_cast<void*>(begin + keep), at + length - (begin + keep));
    auto* p = reinterpret_cast<void*>(begin);
    advisePageSize(p, bytes);
#ifdef STEPSCOPE_ASAN
    // The sanitizer knows no redzone for a mapping: mark the rest of its last page, so that a
    // write past the end is reported there as it would be on the heap (past the page, it faults).
    // Leaks of such memory are not reported.
    ASAN_POISON_MEMORY_REGION(static_cast<char*>(p) + bytes, keep - bytes);
#endif
    return p;
}

void unmapHugePageBytes(void* p, size_t bytes) noexcept {
#ifdef STEPSCOPE_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, roundUpToPage(bytes));
#endif
    ::munmap(p, roundUpToPage(bytes));
}

} // namespace stepscope
