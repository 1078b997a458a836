#include "model/analysis/DevicePeaks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "model/DeviceDetails.h"

namespace stepscope {

namespace {

// FLOPs per SM (CU) per cycle, dense. Columns in Precision's order:
// fp4, fp8, int8, fp16, bf16, tf32, fp32, fp64 (Unknown has none).
struct UnitRates {
    double fp4 = 0, fp8 = 0, int8 = 0, fp16 = 0, bf16 = 0, tf32 = 0, fp32 = 0, fp64 = 0;
    std::array<double, kPrecisionCount> array() const {
        return {fp4, fp8, int8, fp16, bf16, tf32, fp32, fp64, 0};
    }
};

struct ArchitectureRates {
    const char* name; // "sm_90 (Hopper)"
    int key;          // NVIDIA: major * 10 + minor; AMD: unused
    const char* gfx;  // AMD: "gfx942"; NVIDIA: nullptr
    UnitRates matrix, vector;
};

// NVIDIA, per SM per cycle: openxla/xprof xprof/utils/cuda_type_utils.cc
// (kComputeCap_PerSM_PerCycle_*; its Tensor Core fp32 column is TF32). FP4 on 10.0: Stepscope's,
// 2 x FP8 (NVIDIA Blackwell datasheet, dense FP4 = 2 x dense FP8).
constexpr ArchitectureRates kNvidia[] = {
    {"sm_70 (Volta)",
     70,
     nullptr,
     {.fp16 = 1024},
     {.int8 = 512, .fp16 = 256, .fp32 = 128, .fp64 = 64}},
    {"sm_75 (Turing)",
     75,
     nullptr,
     {.int8 = 2048, .fp16 = 1024},
     {.int8 = 512, .fp16 = 256, .fp32 = 128, .fp64 = 64}},
    {"sm_80 (Ampere)",
     80,
     nullptr,
     {.int8 = 4096, .fp16 = 2048, .bf16 = 2048, .tf32 = 1024, .fp64 = 128},
     {.int8 = 512, .fp16 = 512, .bf16 = 256, .fp32 = 128, .fp64 = 64}},
    {"sm_86 (Ampere)",
     86,
     nullptr,
     {.int8 = 2048, .fp16 = 1024, .bf16 = 512, .tf32 = 256},
     {.int8 = 512, .fp16 = 256, .bf16 = 256, .fp32 = 256, .fp64 = 128}},
    {"sm_89 (Ada)",
     89,
     nullptr,
     {.fp8 = 2048, .int8 = 2048, .fp16 = 1024, .bf16 = 1024, .tf32 = 512},
     {.int8 = 512, .fp16 = 256, .bf16 = 256, .fp32 = 256, .fp64 = 128}},
    {"sm_90 (Hopper)",
     90,
     nullptr,
     {.fp8 = 8192, .int8 = 8192, .fp16 = 4096, .bf16 = 4096, .tf32 = 2048, .fp64 = 256},
     {.int8 = 1024, .fp16 = 512, .bf16 = 512, .fp32 = 256, .fp64 = 128}},
    {"sm_100 (Blackwell)",
     100,
     nullptr,
     {.fp4 = 32768,
      .fp8 = 16384,
      .int8 = 16384,
      .fp16 = 8192,
      .bf16 = 8192,
      .tf32 = 4096,
      .fp64 = 148},
     {.int8 = 1184, .fp16 = 592, .bf16 = 592, .fp32 = 296, .fp64 = 148}},
};

// AMD, per CU per cycle: openxla/xprof xprof/utils/rocm_type_utils.cc
// (GetAmdFlopCapsPerCuPerCycle; its mxfp4 column is FP4 here).
constexpr ArchitectureRates kAmd[] = {
    {"gfx908 (CDNA 1)",
     0,
     "gfx908",
     {.int8 = 1024, .fp16 = 1024, .bf16 = 512, .fp32 = 256},
     {.fp32 = 128, .fp64 = 64}},
    {"gfx90a (CDNA 2)",
     0,
     "gfx90a",
     {.int8 = 1024, .fp16 = 1024, .bf16 = 1024, .fp32 = 256, .fp64 = 256},
     {.fp32 = 128, .fp64 = 128}},
    {"gfx942 (CDNA 3)",
     0,
     "gfx942",
     {.fp8 = 4096,
      .int8 = 4096,
      .fp16 = 2048,
      .bf16 = 2048,
      .tf32 = 1024,
      .fp32 = 256,
      .fp64 = 256},
     {.fp16 = 256, .fp32 = 256, .fp64 = 128}},
    {"gfx950 (CDNA 4)",
     0,
     "gfx950",
     {.fp4 = 16384,
      .fp8 = 8192,
      .int8 = 8192,
      .fp16 = 4096,
      .bf16 = 4096,
      .fp32 = 256,
      .fp64 = 128},
     {.fp16 = 256, .fp32 = 256, .fp64 = 128}},
};

// What the datasheets give for products whose profiles may lack the clock or the bandwidth
// (PyTorch traces): the boost clock and the memory bandwidth. Matched by a part of the device
// name, first match wins. Sources: NVIDIA H200 datasheet (4.8 TB/s; the H200 JAX profile in
// shared/realdata records the same 1,980 MHz clock), NVIDIA H100 datasheet (SXM 3.35 TB/s, PCIe
// 2 TB/s), NVIDIA A100 datasheet (80 GB SXM 2,039 GB/s, 40 GB 1,555 GB/s; 1,410 MHz), NVIDIA
// V100 datasheet (900 GB/s; SXM2 1,530 MHz, PCIe 1,380 MHz), AMD Instinct MI250X, MI300X and
// MI325X data sheets.
struct Datasheet {
    const char* namePart;
    double clockMHz;
    double bandwidth; // bytes/s
};
constexpr Datasheet kDatasheets[] = {
    {"H200", 1980, 4.8e12},
    {"H100 PCIe", 1755, 2.0e12},
    {"H100", 1980, 3.35e12},
    {"A100-SXM4-80GB", 1410, 2.039e12},
    {"A100 80GB PCIe", 1410, 1.935e12},
    {"A100", 1410, 1.555e12},
    {"V100-PCIE", 1380, 9.0e11},
    {"V100", 1530, 9.0e11},
    {"MI250X", 1700, 3.2768e12},
    {"MI300X", 2100, 5.3e12},
    {"MI325X", 2100, 6.0e12},
};

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

const ArchitectureRates* nvidiaRates(int major, int minor, bool& fallback) {
    const int key = major * 10 + minor;
    const ArchitectureRates* best = nullptr;
    for (const ArchitectureRates& r : kNvidia)
        if (r.key <= key) best = &r;
    fallback = best && best->key != key;
    return best;
}

const ArchitectureRates* amdRates(std::string_view name, int major, int minor) {
    std::string_view gfx;
    if (name.starts_with("gfx"))
        gfx = name.substr(0, 6);
    else if (major == 9 && minor == 4)
        gfx = "gfx942";
    else if (major == 9 && minor == 5)
        gfx = "gfx950";
    else if (contains(name, "MI300") || contains(name, "MI325"))
        gfx = "gfx942";
    else if (contains(name, "MI350") || contains(name, "MI355"))
        gfx = "gfx950";
    else if (contains(name, "MI250") || contains(name, "MI210") || contains(name, "MI200"))
        gfx = "gfx90a";
    else if (contains(name, "MI100"))
        gfx = "gfx908";
    for (const ArchitectureRates& r : kAmd)
        if (gfx == r.gfx) return &r;
    return nullptr;
}

std::string number(double v, const char* unit) {
    char b[64];
    std::snprintf(b, sizeof b, "%.4g %s", v, unit);
    return b;
}

} // namespace

double DevicePeaks::flopsRoof(Precision p, bool onMatrixUnits) const {
    const size_t i = size_t(p);
    if (i >= kPrecisionCount) return 0;
    if (onMatrixUnits && matrixFlops[i] > 0) return matrixFlops[i];
    return vectorFlops[i];
}

bool DevicePeaks::hasComputeRoofs() const {
    return std::any_of(matrixFlops.begin(), matrixFlops.end(), [](double v) { return v > 0; }) ||
           std::any_of(vectorFlops.begin(), vectorFlops.end(), [](double v) { return v > 0; });
}

DevicePeaks devicePeaksOf(std::string_view name, std::string_view vendor, int major, int minor,
                          int64_t units, int64_t clockKHz, uint64_t bandwidth) {
    DevicePeaks d;
    d.device = std::string(name);
    d.units = units;
    GpuVendor v = gpuVendorOf(vendor);
    if (v == GpuVendor::Unknown)
        v = contains(name, "AMD") || contains(name, "Instinct") || name.starts_with("gfx")
                ? GpuVendor::Amd
            : major > 0 ? GpuVendor::Nvidia
                        : GpuVendor::Unknown;
    const Datasheet* sheet = nullptr;
    for (const Datasheet& s : kDatasheets)
        if (contains(name, s.namePart)) {
            sheet = &s;
            break;
        }
    std::string clockFrom = "profile", bandwidthFrom = "profile";
    d.clockHz = double(clockKHz) * 1e3;
    if (d.clockHz <= 0 && sheet) {
        d.clockHz = sheet->clockMHz * 1e6;
        clockFrom = std::string("datasheet of ") + sheet->namePart;
    }
    d.memoryBytesPerSecond = double(bandwidth);
    if (d.memoryBytesPerSecond <= 0 && sheet) {
        d.memoryBytesPerSecond = sheet->bandwidth;
        bandwidthFrom = std::string("datasheet of ") + sheet->namePart;
    }

    const ArchitectureRates* rates = nullptr;
    bool fallback = false;
    std::string table;
    if (v == GpuVendor::Nvidia && major > 0) {
        rates = nvidiaRates(major, minor, fallback);
        table = "XProf's per-SM table (xprof/utils/cuda_type_utils.cc)";
    } else if (v == GpuVendor::Amd) {
        rates = amdRates(name, major, minor);
        table = "XProf's per-CU table (xprof/utils/rocm_type_utils.cc)";
    }
    std::string source;
    if (rates) {
        d.architecture = rates->name;
        if (fallback)
            d.architecture += " rates, for compute capability " + std::to_string(major) + "." +
                              std::to_string(minor);
        if (units > 0 && d.clockHz > 0) {
            const double scale = double(units) * d.clockHz;
            const auto m = rates->matrix.array(), vec = rates->vector.array();
            for (size_t i = 0; i < kPrecisionCount; ++i) {
                d.matrixFlops[i] = m[i] * scale;
                d.vectorFlops[i] = vec[i] * scale;
            }
            source = "Compute roofs: " + table + " for " + rates->name + " x " +
                     std::to_string(units) + " units x " + number(d.clockHz / 1e9, "GHz") +
                     " (clock from the " + clockFrom + ").";
        } else {
            source = "No compute roofs: the profile records no SM count or clock for this GPU.";
        }
    } else {
        source = "No compute roofs: no peak table covers this GPU.";
    }
    if (d.memoryBytesPerSecond > 0)
        source += " Memory roof: " + number(d.memoryBytesPerSecond / 1e12, "TB/s") + " (" +
                  bandwidthFrom + ").";
    else
        source += " No memory roof: neither the profile nor the datasheet table gives the "
                  "bandwidth.";
    d.source = std::move(source);
    return d;
}

DevicePeaks devicePeaks(const Profile& profile, uint32_t plane) {
    const Plane& pl = profile.planes()[plane];
    std::string name;
    for (const StatValue& s : profile.planeStats(pl)) {
        const std::string_view key = profile.str(s.key);
        if ((key == "gpu_device_name" || (key == "name" && name.empty())) && s.isText())
            name = std::string(profile.str(s.asString()));
    }
    if (name.empty()) name = "GPU " + std::to_string(std::max(0, pl.deviceOrdinal));
    const DeviceInfo& info = pl.device;
    return devicePeaksOf(name, info.vendor, info.computeCapMajor, info.computeCapMinor,
                         info.coreCount, info.clockRateKHz, info.bandwidthBps);
}

} // namespace stepscope
