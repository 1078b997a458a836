#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "model/ProfileBuilder.h"
#include "model/Progress.h"

namespace stepscope {

// Decodes an XSpace (the public tensorflow.profiler.XSpace wire format) straight from its bytes
// into a ProfileBuilder, as one host. No generated protobuf classes are involved: the importer
// reads the wire itself so that events go directly into columns.
//
// Events are decoded on up to `threads` threads (0: every core this process may use), in chunks
// of a line; the profile is the same for any thread count.
//
// Returns an empty string on success, otherwise a message that names the byte offset and the
// field where decoding failed (the first failure in file order). On failure the builder may hold
// part of the host; callers discard the builder.
std::string importXSpace(std::span<const uint8_t> bytes, ProfileBuilder& builder, uint32_t host,
                         const Progress* progress = nullptr, unsigned threads = 0);

} // namespace stepscope
