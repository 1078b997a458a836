#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "model/ProfileBuilder.h"
#include "model/Progress.h"

namespace stepscope {

// How much of traceEvents importChromeTrace reads at a time: windows of 256 KiB to 4 MiB read a
// 1M-event trace equally fast on these machines (their index stays in the cache).
inline constexpr size_t kChromeTraceWindowBytes = size_t(1) << 20;

// Imports a Chrome trace JSON file as one host: PyTorch profiler (Kineto) traces of both schemas
// (2021: `Operator`/`Runtime`/`Kernel` categories, "stream N" thread ids; 2022 on: `cpu_op`,
// `cuda_runtime`, `kernel`, `gpu_memcpy`, `ac2g` flows, `[memory]` events, `baseTimeNanoseconds`),
// ROCm traces (same categories), and the Chrome JSON other tools write (object or bare-array
// form; `X`, `B`/`E` and instant phases). `bytes` is the file as read: gzip is decompressed here.
//
// Mapping into the model (README, "Kineto and Chrome trace JSON"):
// - device events (categories kernel, gpu_memcpy, gpu_memset, gpu_user_annotation, cuda_sync,
//   and the 2021 Kernel/Memcpy/Memset) go to a plane "/device:GPU:<device>" with a line
//   "Stream #<stream>(<kinds>)" per stream; GPU user annotations and syncs go to lines of their
//   own that analyses skip (derived line ids, as XProf's derived lines);
// - every other event goes to a plane "/host:CPU <process> (pid N)" per pid, a line per tid;
// - args become stats; `correlation` becomes `correlation_id`, so launches join their kernels;
//   kernels get `kernel_details` (from grid, block, registers per thread, shared memory), copies
//   and memsets `memcpy_details`, and device work the `tf_op` of the cpu_op that enclosed its
//   launch;
// - `[memory]` instants become MemoryAllocation / MemoryDeallocation events for the memory
//   profile; `ProfilerStep#N` ranges also form a "Steps" line on every GPU plane;
// - timestamps are read from the number's text, so µs with ns (or finer) fractions keep their
//   precision at any magnitude.
//
// `readableAfter`: how many bytes past the end of `bytes` may be read (a memory-mapped file's
// last page is readable to its end); with at least 64, plain JSON the importer reads as one
// document is parsed in place instead of copied.
//
// `windowBytes`: traceEvents is read a window of about this many bytes at a time (grown where
// one event is larger), the rest of the document on its own; 0 reads the whole text as one
// document (slower on large files: simdjson's index of the whole text in fresh memory). Both
// give the same profile; tests compare them.
//
// Returns an empty string on success, otherwise a message naming the byte offset (in the
// decompressed JSON for gzip files) and what was expected. Never throws.
std::string importChromeTrace(std::span<const uint8_t> bytes, ProfileBuilder& builder,
                              uint32_t host, const Progress* progress = nullptr,
                              size_t readableAfter = 0,
                              size_t windowBytes = kChromeTraceWindowBytes);

// Whether bytes look like JSON (first non-blank byte `{` or `[`) or gzip.
bool looksLikeChromeTrace(std::span<const uint8_t> bytes);

} // namespace stepscope
