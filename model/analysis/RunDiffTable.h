#pragma once

#include <cstdint>

#include "model/Table.h"
#include "model/analysis/RunDiff.h"

namespace stepscope {

enum class DiffBy : uint8_t { Category, Op, Kernel, HostOp };

// The rows of one table as the diff page and `stepscope-cli diff --csv` show them. Columns:
// [Type | Launch configuration,] Name, Class, Evidence, Baseline count, Candidate count,
// Baseline total (µs), Candidate total (µs), Delta total (µs), Ratio, Baseline avg (µs),
// Candidate avg (µs), Shift per step (µs), Shift low (µs), Shift high (µs), Shift (%), p-value,
// then Tensor Core columns (op: baseline / candidate TC %, kernel: uses TC). HostOp: hostOpTable.
Table runDiffTable(const RunDiff& diff, DiffBy by);

} // namespace stepscope
