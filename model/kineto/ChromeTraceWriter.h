#pragma once

#include <string>

#include "model/Profile.h"
#include "model/Progress.h"

namespace stepscope {

// Writes any loaded profile (XSpace or Kineto) as Chrome trace JSON that Perfetto UI and
// chrome://tracing open, and that importChromeTrace() reads back:
// - a process per plane (host planes keep the pid a Kineto trace gave them; GPU planes are
//   process <device ordinal>), named by `process_name` metadata; a thread per track, named by
//   `thread_name`; the order of planes and tracks as `process_sort_index`/`thread_sort_index`;
// - every event as a complete ("X") event, ts and dur in µs written exactly (to the picosecond,
//   no rounding through a double); the event's category, when it has one, as `cat`; its stats
//   and its metadata's stats as `args`; events on GPU stream lines carry `device` and `stream`
//   and the category kernel, gpu_memcpy or gpu_memset, so the Kineto importer puts them back;
// - each launch -> device flow as an `s`/`f` pair (category ac2g);
// - GPU device properties as `deviceProperties`, the profile start as `baseTimeNanoseconds`
//   (ts are relative to it).
// `path` ending in ".gz" is written gzip-compressed. Returns an empty string on success,
// otherwise what went wrong. The file is written as `path`.partial and renamed over `path` only
// when complete, so a cancelled or failed export leaves an existing `path` untouched.
std::string writeChromeTrace(const Profile& profile, const std::string& path,
                             const Progress* progress = nullptr);

} // namespace stepscope
