#pragma once

// Turns the records of the profiled processes of one machine into an XSpace laid out as
// TensorFlow's GPU tracer lays it out, so Stepscope's tools and TensorBoard read it like a
// TensorFlow profile:
//   - "/host:CPU": a line per thread (id = tid, its name when recorded) with the CUDA runtime and
//     driver API calls (stat `correlation_id`) and NVTX ranges; a line "CUDA memory" with
//     `MemoryAllocation` / `MemoryDeallocation` events carrying the allocator stats the memory
//     profile reads (allocator_name "GPU_<id>_cuda", bytes_allocated = bytes in use after the
//     event, counted in time order, peak_bytes_in_use, allocation_bytes, requested_bytes, addr); a
//     line "CUPTI overhead".
//   - "/device:GPU:<id>" per device, with the device properties as plane stats (clock_rate in
//     kHz, core_count = SMs, memory_size, memory_bandwidth in bytes/s, compute_cap_major/minor,
//     device_vendor "Nvidia") and a line per stream, "Stream #<id>(<kinds>)" (Kernel,
//     MemcpyH2D, MemcpyD2H, MemcpyD2D, MemcpyP2P, Memset, comma-separated as they occur).
//     Kernels carry `correlation_id` and `kernel_details` ("regs:.. static_shared:..
//     dynamic_shared:.. grid:x,y,z block:x,y,z"), and, when launched from a CUDA graph,
//     `cuda_graph_id` / `cuda_graph_node_id`; copies carry `correlation_id` and
//     `memcpy_details` ("kind:.. size:.. dest:.. async:1"); memsets `correlation_id` and
//     `memset_details` ("size:.. value:..").
//   - NVTX ranges named like steps ("step 3", "Step#3", "train_step_3": the last "step", then
//     separators and digits) are copied to a "Steps" line (XProf's id 0xdeadbeef) on each GPU
//     that ran work, with stat step_num.
// Dropped records, records the reader left out (a time or size out of range, a second process
// record) and a truncated record file go to XSpace.errors, so the profile says so.
//
// Several processes (a program and the workers it started) share one XSpace as Nsight Systems
// shows them: a host plane each, "/host:CPU <program> (pid <pid>)" with plane stats `pid` and
// `process_name` (as the Kineto importer names a trace's processes), and the device planes
// shared. CUPTI numbers correlation ids, streams and allocations per process, so each is
// qualified by its process: `correlation_id` = pid * 2^32 + CUPTI's id on host and device events
// (a launch joins only its own process's kernels), a stream line "Stream #<id>(<kinds>) pid
// <pid>", an allocator "GPU_<id>_cuda pid <pid>", and each error starts "<program> (pid <pid>): ".
// A GPU's "Steps" line comes from the first process that ran work on it and named steps (ranks
// sharing a GPU repeat each other's steps). One process alone keeps the names and ids above.

#include <cstdint>
#include <string>
#include <vector>

#include "capture/CuptiRecords.h"

namespace stepscope::capture {

struct ConversionInput {
    std::vector<Record> records; // as the reader keeps them (capture/RecordLimits.h holds)
    std::string truncation;      // the record file's problem (a crash mid-write), "" when whole
    std::vector<std::string> rejected; // the records the reader left out, and why
};

// The XSpace bytes for one process.
std::vector<uint8_t> convertToXSpace(const ConversionInput& input);
// The XSpace bytes for the processes of one machine, in this order; their pids must differ
// (writeCaptureRun sees to it).
std::vector<uint8_t> convertProcessesToXSpace(const std::vector<ConversionInput>& processes);

// The host name a process's file is named by: "<hostname>_<pid>" (':' as '_').
std::string processHostName(const std::vector<Record>& records);

struct CaptureRunResult {
    std::string error;                 // nothing could be written
    std::vector<std::string> files;    // one .xplane.pb per machine
    std::vector<std::string> warnings; // truncated record files, dropped records, unusable files
    bool ok() const { return error.empty() && !files.empty(); }
};

// Reads the record files and writes one XSpace per machine (hostname) into
// `logDir/plugins/profile/<run>/`: `<hostname>.xplane.pb` with its processes side by side, in the
// order they started recording, or `<hostname>_<pid>.xplane.pb` for a machine with one process. A
// file without a process record, or with a pid another file of its machine already has, is
// written alone as `<hostname>_<pid>` (`unknown_process`); a name already taken in the run gets
// "_2", "_3", ....
// Each file is replaced whole or not at all (model/AtomicFile.h) and read back; the first that
// cannot be written, or does not read back as written, stops the run with an error that says why
// ("No space left on device"), and `files` lists only those written before it.
CaptureRunResult writeCaptureRun(const std::vector<std::string>& recordFiles,
                                 const std::string& logDir, const std::string& run);

} // namespace stepscope::capture
