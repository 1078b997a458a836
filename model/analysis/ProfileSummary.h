#pragma once

#include <string>
#include <vector>

#include "model/Profile.h"
#include "model/Table.h"

namespace stepscope {

// What the "Profile summary" tool and `stepscope-cli info` show: the profile as loaded.
struct ProfileSummary {
    Table hosts;  // host, file, planes, events, errors, warnings
    Table planes; // host, plane, kind, device, vendor, compute capability, SMs, clock, memory...
    Table tracks; // host, plane, track, kind, stream kind, events, depth, first/last event
    std::vector<std::string> messages; // XSpace errors and warnings, prefixed with their host
    uint64_t events = 0;
    int64_t durationPs = 0;
};

ProfileSummary summarizeProfile(const Profile& profile);
std::string summaryToText(const ProfileSummary& summary);
std::string summaryToJson(const ProfileSummary& summary);

} // namespace stepscope
