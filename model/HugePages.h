#pragma once

#include <cstddef>
#include <string_view>

namespace stepscope {

// The size of a transparent huge page on x86-64 and of the usual 4 KiB-page arm64 kernels.
inline constexpr size_t kHugePageBytes = size_t(2) << 20;
// Columns of at least this many bytes get memory of their own from mapHugePageBytes.
inline constexpr size_t kHugePageAdviceBytes = kHugePageBytes;

// Whether this process asks for huge pages, and what decided it. On a virtual machine where each
// fault costs microseconds, the faults of 4 KiB pages were a quarter to a third of a load, and
// 2 MiB pages took most of them out; on bare metal they save less. But where the kernel hands
// free memory back to a hypervisor (free page reporting, as virtio-balloon and Hyper-V's balloon
// do), free blocks of the order reported (2 MiB on x86-64) are handed back within seconds of being
// freed, and a huge page comes from such a block: its first touch then waits for the host to back
// and zero 2 MiB again, 1.9-3.0 s per GiB against 0.4-0.6 s for 4 KiB pages, which the guest still
// serves from the smaller free blocks it does not report (docs/load-speed.md, twelfth part). So
// huge pages are asked for unless the kernel reports free pages; STEPSCOPE_HUGE_PAGES=1 or =0 in
// the environment chooses instead. Read once per process.
enum class HugePageSource {
    Default,       // huge pages: nothing speaks against them
    PageReporting, // 4 KiB pages: the kernel reports free pages to a hypervisor
    Environment,   // STEPSCOPE_HUGE_PAGES chose
    None,          // no huge page advice on this system: none is given
};
struct HugePageChoice {
    bool use = false;
    HugePageSource source = HugePageSource::None;
};
const HugePageChoice& hugePageChoice();

// Whether the text of /sys/module/page_reporting/parameters/page_reporting_order says that a
// driver reports free pages: it holds the order reported (0 to 10) once one has registered, and
// -1 until then (older kernels start it at 11). Any other text, an empty one included, says no.
// What this misses: kernels 5.7-5.13 report free pages but have no such parameter, and an order
// set by hand (at boot or in that file) with no driver reads as reporting. The bound 10 is the
// largest order of x86-64 and of 4 KiB-page arm64 kernels.
bool pageReportingActive(std::string_view pageReportingOrder);

// Advises the kernel, before anything touches them, to back the whole 2 MiB pages inside
// [p, p + bytes) with the page size hugePageChoice() chose: madvise MADV_HUGEPAGE (where the
// system's setting is "madvise", the default on Debian, nothing else gets them) or
// MADV_NOHUGEPAGE (which keeps a system set to "always" from giving them). The pages are zeroed
// once by the kernel either way. Does nothing where the range holds no whole huge page or the
// system has no such pages; nothing else changes, so a failure is not reported.
void advisePageSize(const void* p, size_t bytes);

// Gives the whole 2 MiB pages inside [p, p + bytes) back to the system (madvise MADV_DONTNEED),
// for memory read for the last time that stays allocated a while longer; touched again, those
// pages read as zeros.
void releaseHugePages(const void* p, size_t bytes);

// Fresh memory of its own for `bytes` (at least kHugePageAdviceBytes): a private mapping that
// starts on a 2 MiB boundary, advised by advisePageSize, untouched and so not yet resident. Unlike
// the heap's, it goes back to the system when freed and its advice reaches nothing else. Throws
// std::bad_alloc when the system has no room. Free it with unmapHugePageBytes and the same size.
void* mapHugePageBytes(size_t bytes);
void unmapHugePageBytes(void* p, size_t bytes) noexcept;

} // namespace stepscope
