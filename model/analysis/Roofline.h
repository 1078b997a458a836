#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/analysis/DevicePeaks.h"
#include "model/analysis/Precision.h"

namespace stepscope {

// How close each device op runs to the GPU's limits: XProf's roofline_model, op_profile and
// hlo_stats (xprof/convert/op_stats_to_roofline_model.cc, op_metrics_to_record.h
// SetRooflineMetrics), on Stepscope's own cost model. Rules and departures: docs/roofline.md.
//
// Ops, per GPU (plane):
// - XLA (JAX, TensorFlow with XLA): every device event the HloCatalog attributes to an HLO
//   instruction (command-buffer kernels included) counts for that instruction of its program;
//   FLOPs and bytes per execution from HloCostModel. Executions (occurrences): the largest
//   event count among the instruction's kernel names, as TfOpStats counts device ops (a cuBLAS
//   call that runs a GEMM and a split-K reduction executes once, not twice).
// - PyTorch (Kineto traces): every device event launched by an operator (TorchTrace: the op that
//   holds the launch's External id) counts for that operator call; one row per (operator,
//   "Input Dims"), FLOPs and bytes per call from TorchOpCost, summed over calls; occurrences are
//   the calls that launched device work.
// - Device work neither attributes (copies, memsets, kernels no op claims) is a row of its own
//   per event name, of unknown FLOPs and bytes, so every device picosecond lands in one row.
// Time: the summed duration of the op's device events (GPU ops do not nest: self = total).
// Precision: of the op's kernel time, the precision holding most (KernelFacts); its compute roof
// is on the matrix units (Tensor Cores) when most of its kernel time is in kernels that use
// them, or, where KernelFacts cannot tell, when the op multiplies matrices (an HLO dot,
// convolution or library GEMM; a PyTorch GEMM, convolution or attention op).
// Steps: analyzeSteps(); an event belongs to the step of its host that holds its start.
enum class BoundBy : uint8_t { Compute, Memory, Latency, Unknown };
std::string_view boundByName(BoundBy b); // "Compute", "Memory", "Latency", "Unknown"

// Below this share of both roofs an op is latency-bound (Stepscope's third class; XProf picks
// the larger share whatever its size): it neither computes nor streams memory at any real
// fraction of the GPU's rate (launch overhead, tiny grids, serial dependencies).
inline constexpr double kLatencyBoundShare = 0.10;

// The bound of an op from its shares of the compute and memory roofs (0..1, nullopt where
// unknown): the larger share wins, as XProf's SetRooflineMetrics; Latency when the larger is
// below kLatencyBoundShare; Unknown when neither is known.
BoundBy boundBy(std::optional<double> computeShare, std::optional<double> memoryShare);

struct RooflineOp {
    uint32_t device = 0;     // into Roofline::devices
    std::string program;     // HLO module with its program id, "jit_train_step(7961)"; "" else
    std::string name;        // HLO instruction or PyTorch operator; the event name if neither
    std::string category;    // HLO: opcode, "<kind> fusion", "cuBLAS GEMM"...; PyTorch: kind
    std::string shape;       // HLO: result shape "bf16[4096,8192]"; PyTorch: "Input Dims"
    std::string frameworkOp; // HLO: metadata op_name; PyTorch: enclosing operators "a/b/op"
    std::string source;      // "file.py:12" where the HLO records it
    Precision precision = Precision::Unknown;
    bool matrixUnits = false;
    bool attributed = false; // an HLO instruction or a PyTorch operator (not a bare event)
};

// The program an op's rows group under: its XLA module, "PyTorch" for PyTorch operators, "Not
// attributed" for device work no op claims.
std::string programOf(const RooflineOp& op);

// An op's work over the whole profile (step -1) or one step.
struct RooflineCell {
    uint32_t op = 0;
    int32_t step = -1; // into Roofline::steps; -1: the whole profile
    uint64_t occurrences = 0;
    int64_t timePs = 0;
    std::optional<double> flops, bytes; // summed over occurrences; empty: not known for all
    double transcendentals = 0;
    EventIndex longest = kNoIndex; // its longest event (the earliest of equals)
};

struct RooflineStep {
    int64_t number = 0;
    uint32_t host = 0;
    int64_t beginPs = 0, durationPs = 0;
};

struct Roofline {
    std::vector<DevicePeaks> devices;
    std::vector<uint32_t> devicePlane; // per device: its Profile::planes() index
    std::vector<RooflineOp> ops;
    std::vector<RooflineCell> cells; // whole-profile cells (one per op, in op order) first
    std::vector<RooflineStep> steps;
    std::vector<std::string> notes; // HLO modules that failed to decode, ...

    // The cells of one step (-1: the whole profile), in op order.
    std::vector<const RooflineCell*> cellsOf(int32_t step) const;
};

// Cells added up (one op; a program; a category or framework-op path of the op profile).
// Time and occurrences add. FLOPs and bytes add over the cells that know them. The shares of
// the roofs add per cell, as the time each cell's work would take at its own roof
// (FLOPs / its precision's roof, bytes / bandwidth) over the summed time, so ops of different
// precisions (roofs) add up correctly; the roof such a sum shows is the one that time implies
// (FLOPs over those seconds).
struct RooflineSum {
    size_t cells = 0, flopsKnown = 0, bytesKnown = 0;
    uint64_t occurrences = 0;
    int64_t timePs = 0;
    double flops = 0, bytes = 0, transcendentals = 0;
    double computeRoofSeconds = 0, memoryRoofSeconds = 0; // at the roofs, where known
    double roofedFlops = 0, roofedBytes = 0;              // the FLOPs and bytes those seconds cover
    size_t computeRoofed = 0, memoryRoofed = 0;           // cells with known work and a roof
    double lastComputeRoof = 0, lastMemoryRoof = 0;       // the roof of such a cell
    bool mixedComputeRoofs = false, mixedMemoryRoofs = false; // such cells' roofs differ
    EventIndex longest = kNoIndex; // the longest event of the longest cell
    int64_t longestCellPs = 0;
    void add(const Roofline& r, const RooflineCell& cell);
};

// Derived numbers against the roofs. FLOP/s and Bytes/s: known FLOPs (bytes) over the time;
// intensity: FLOPs / bytes; shares: time at the roofs / time (0..1, above 1 where the model
// counts more work than the kernels did); bound: boundBy() of the shares.
struct RooflineMetrics {
    std::optional<double> flopsPerSecond, bytesPerSecond, intensity; // FLOP/byte
    double computeRoof = 0, memoryRoof = 0;                          // 0: no roof
    std::optional<double> computeShare, memoryShare;
    BoundBy bound = BoundBy::Unknown;
};
RooflineMetrics rooflineMetrics(const RooflineSum& sum);
RooflineMetrics rooflineMetrics(const Roofline& r, const RooflineCell& cell);

// Returns an empty result if cancelled.
Roofline computeRoofline(const Profile& profile, const Progress* progress = nullptr);

// Whether the tools have anything to show: a GPU plane with device ops, and HLO protos or
// PyTorch operators to cost. Cheap.
bool hasRoofline(const Profile& profile);

} // namespace stepscope
