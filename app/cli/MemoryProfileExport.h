#pragma once

#include <string>

#include "app/cli/Exporters.h"
#include "model/Profile.h"
#include "model/Table.h"

namespace stepscope::cli {

// `export memory_profile PATH [--memory-id ID]`: the page for one memory id (default: the one
// the page opens on, MemoryProfile::defaultSeries). An unknown --memory-id throws, naming the ids
// the profile has.
// CSV: the breakdown table (allocations live at the peak).
Table memoryProfileCsv(const Profile& profile, const ExportOptions& options);
// JSON: {"tool", "memory_id", "memory_ids", "impossible_values", "summary", "timeline" (every
// allocator event in time order, with the allocator state after it), "breakdown"}; sizes in
// bytes, times in ps from the profile start, null where the profile does not record a value (a
// step included: a record outside every step).
std::string memoryProfileJson(const Profile& profile, const ExportOptions& options);

} // namespace stepscope::cli
