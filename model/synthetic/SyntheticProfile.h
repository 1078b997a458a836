#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope {

// A synthetic GPU-training profile, the one generator behind `stepscope --demo`,
// `stepscope-cli generate`, the benchmarks and tests. Deterministic for given options.
// The most events per host the command line asks the generator for (generateSyntheticXSpace holds
// one host's XSpace in memory, about 65 bytes an event; writeSyntheticLogDir streams it to disk).
inline constexpr uint64_t kMaxSyntheticEvents = 200'000'000;

struct SyntheticOptions {
    uint64_t events = 20000; // approximate total events per host (all planes)
    int gpus = 2;            // GPU planes per host
    uint64_t seed = 1;
};

// One host's XSpace, serialized (the public wire format).
std::vector<uint8_t> generateSyntheticXSpace(const SyntheticOptions& options,
                                             const std::string& hostName);

// Writes one host's XSpace to `path`, streaming: memory stays at a few MiB per line at any size
// (a temporary file beside `path` holds the events until they are assembled). Returns an empty
// string on success, else a message naming what failed.
std::string writeSyntheticXSpace(const SyntheticOptions& options, const std::string& hostName,
                                 const std::string& path);

// Writes LOGDIR/plugins/profile/<run>/<host>.xplane.pb for `hosts` hosts (events per host as in
// options). Returns an empty string on success, else a message naming the path that failed.
std::string writeSyntheticLogDir(const SyntheticOptions& options, int hosts,
                                 const std::string& logDir, const std::string& runName);

} // namespace stepscope
