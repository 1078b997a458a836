#pragma once

#include <string>
#include <vector>

#include "model/Table.h"
#include "model/analysis/Roofline.h"

namespace stepscope {

// The roofline table the tool shows and exports, for one step (-1: the whole profile): per
// device and program (programOf) a "Program" row (its ops summed, RooflineSum), then its ops by
// time, descending; programs by time, descending. Columns: Step, Device, Program, Category,
// Operation, Shape, Framework op, Occurrences, Self time (µs), Self time (%), FLOPs,
// Transcendentals, Bytes accessed, FLOP/s, Bytes/s, Operational intensity (FLOP/byte),
// Precision, Compute roof (FLOP/s), FLOP/s of roof (%), Memory roof (Bytes/s), Bytes/s of roof
// (%), Bound by, Source. Unknown values are empty. Self time (%) is of the step's device time.
struct RooflineTable {
    Table table;
    std::vector<int64_t> cellOfRow;       // index into Roofline::cells; -1 for Program rows
    std::vector<EventIndex> longestOfRow; // the row's longest event (kNoIndex: none)
};
RooflineTable rooflineTable(const Roofline& r, int32_t step);
// The whole-profile rows, then each step's.
Table rooflineTableAllSteps(const Roofline& r);

// {"tool": "roofline", "devices": [{device, architecture, units, clock_hz,
// memory_bytes_per_second, peak_flops: {matrix: {...}, vector: {...}}, source}],
// "steps": [{number, begin_ps, duration_ps}], "rows": [the whole-profile table]}.
std::string rooflineJson(const Roofline& r);

} // namespace stepscope
