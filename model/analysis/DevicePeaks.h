#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "model/Profile.h"
#include "model/analysis/Precision.h"

namespace stepscope {

// The roofs of one GPU: its peak FLOP/s per precision on the matrix units (NVIDIA Tensor Cores,
// AMD matrix cores) and on the vector units (CUDA cores, AMD SIMDs), and its memory bandwidth.
//
// FLOP/s = FLOPs per SM (CU) per cycle x SMs x clock. FLOPs per SM per cycle, dense (no
// sparsity), come from XProf's tables, which cite the vendors' whitepapers:
//   NVIDIA: xprof/utils/cuda_type_utils.cc (compute capability 7.0 Volta, 7.5 Turing, 8.0 and
//   8.6 Ampere, 8.9 Ada, 9.0 Hopper, 10.0 Blackwell); a capability between two rows takes the
//   row below it, as XProf does (12.0 reads as 10.0); below 7.0 nothing is known.
//   AMD: xprof/utils/rocm_type_utils.cc per CU (gfx908 MI100, gfx90a MI200, gfx942 MI300,
//   gfx950 MI350), the gfx version from the device name (gfx942) or compute capability
//   9.4 / 9.5, as XProf resolves it, or from the product name (MI100, MI2x0, MI300/MI325,
//   MI350/MI355).
// Stepscope's one addition: dense FP4 on Blackwell Tensor Cores at twice the FP8 rate (NVIDIA's
// Blackwell datasheet: 9 PFLOPS dense FP4 vs 4.5 PFLOPS dense FP8 on B200). XProf's table
// keeps TF32 in its fp32 column of the Tensor Cores; here it is TF32's own roof.
//
// SMs, clock and bandwidth come from the profile's device plane (XLA writes core_count,
// clock_rate in kHz and memory_bandwidth in bytes/s; Kineto's deviceProperties give numSms and
// the compute capability but no clock or bandwidth). What the profile lacks is taken from the
// product's datasheet by its name (a small table: H200, H100 SXM/PCIe, A100 40/80 GB, V100,
// MI250X, MI300X, MI325X; sources in DevicePeaks.cpp), and said so in `source`.
struct DevicePeaks {
    std::string device;       // "NVIDIA H200"; "GPU 0" where the profile names none
    std::string architecture; // "sm_90 (Hopper)", "gfx942 (CDNA 3)"; empty when not known
    int64_t units = 0;        // SMs or CUs
    double clockHz = 0;
    double memoryBytesPerSecond = 0;                   // 0: not known
    std::array<double, kPrecisionCount> matrixFlops{}; // per Precision; 0: none
    std::array<double, kPrecisionCount> vectorFlops{}; // per Precision; 0: none
    std::string source; // where each number came from, for the tool's footnote

    // The compute roof of work in `p`: the matrix units' when `onMatrixUnits` and they take p,
    // else the vector units'; 0 when neither is known.
    double flopsRoof(Precision p, bool onMatrixUnits) const;
    bool hasComputeRoofs() const;
};

// The peaks of the GPU of a plane (Profile::planes() index). Empty numbers where unknown.
DevicePeaks devicePeaks(const Profile& profile, uint32_t plane);

// The same from explicit properties (for tests and traces without a plane): `name` is the
// product name, `vendor` the device_vendor text, clock in kHz, bandwidth in bytes/s (0: take
// them from the datasheet table).
DevicePeaks devicePeaksOf(std::string_view name, std::string_view vendor, int computeCapMajor,
                          int computeCapMinor, int64_t units, int64_t clockKHz,
                          uint64_t bandwidthBytesPerSecond);

} // namespace stepscope
