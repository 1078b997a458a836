#pragma once

// What every loaded profile must satisfy, whatever bytes it came from: the fuzz targets call it on
// each profile that loads and abort on the first violation, so libFuzzer reports the input.

#include "model/Profile.h"

namespace stepscope::fuzz {

// Aborts unless every event lies inside the profile with end >= start, the events of each
// (track, depth) lane are ordered without overlap, every stat formats, every memory event and
// flow refers to an event that exists.
void requireProfileInvariants(const Profile& profile);

} // namespace stepscope::fuzz
