#pragma once

// Replacing a file whole or not at all: what a user exports, or a capture converts, over a file
// that is already there must never leave a half-written or empty file in its place when the disk
// fills, the folder turns out read-only or the file size limit is reached.

#include <string>
#include <string_view>

namespace stepscope {

// Writes `bytes` to `path` through a temporary file in the same folder: written, flushed to disk
// (fsync), then renamed over `path`, so `path` holds either its old content or all of `bytes`.
// An existing `path` keeps its permission bits. Returns an empty string on success, otherwise
// "cannot write PATH: REASON" with the system's reason ("No space left on device"); the temporary
// file is removed then.
std::string writeFileAtomically(const std::string& path, std::string_view bytes);

} // namespace stepscope
