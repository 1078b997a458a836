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
// Returns an empty string on success, otherwise a message that names the byte offset and the
// field where decoding failed. On failure the builder may hold part of the host; callers discard
// the builder.
std::string importXSpace(std::span<const uint8_t> bytes, ProfileBuilder& builder, uint32_t host,
                         const Progress* progress = nullptr);

} // namespace stepscope
