#pragma once

#include <cstddef>

namespace stepscope {

// The size of a transparent huge page on x86-64 and of the usual 4 KiB-page arm64 kernels.
inline constexpr size_t kHugePageBytes = size_t(2) << 20;
// Columns of at least this many bytes get memory of their own from mapHugePageBytes.
inline constexpr size_t kHugePageAdviceBytes = kHugePageBytes;

// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with transparent huge pages
// when they are first touched (madvise MADV_HUGEPAGE; where the system's setting is "madvise", the
// default on Debian, nothing else gets them). One page fault then maps 2 MiB instead of 4 KiB:
// a load writes hundreds of MB of fresh columns, and on a virtual machine, where each fault costs
// microseconds, the faults of 4 KiB pages were a quarter to a third of the load. The pages are
// still zeroed once by the kernel. Does nothing where the range holds no whole huge page or the
// system has no such pages; nothing else changes, so a failure is not reported.
void adviseHugePages(const void* p, size_t bytes);

// Gives the whole 2 MiB pages inside [p, p + bytes) back to the system (madvise MADV_DONTNEED),
// for memory read for the last time that stays allocated a while longer; touched again, those
// pages read as zeros.
void releaseHugePages(const void* p, size_t bytes);

// Fresh memory of its own for `bytes` (at least kHugePageAdviceBytes): a private mapping that
// starts on a 2 MiB boundary, advised as above, untouched and so not yet resident. Unlike the
// heap's, it goes back to the system when freed and its advice reaches nothing else. Throws
// std::bad_alloc when the system has no room. Free it with unmapHugePageBytes and the same size.
void* mapHugePageBytes(size_t bytes);
void unmapHugePageBytes(void* p, size_t bytes) noexcept;

} // namespace stepscope
