#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "model/Progress.h"

namespace stepscope::bench {

// The wall-clock and CPU time of each stage of a piece of work, from the stages it reports to a
// Progress (`progress()`): a stage runs from the first report that names it until the first report
// that names another, the first from the work's start and the last until its end, so the stages
// add up to the whole. A stage named again after another opens a second entry (a load builds
// columns twice). The CPU time is the process's (processCpuSeconds: every thread), so CPU over
// wall is how many cores a stage kept busy.
class StageTimes {
public:
    // The work starts at `start`, with the process at `startCpu` seconds of CPU.
    StageTimes(std::chrono::steady_clock::time_point start, double startCpu);
    StageTimes(const StageTimes&) = delete;
    StageTimes& operator=(const StageTimes&) = delete;

    const Progress& progress() const { return progress_; }
    // The work ended at `end`, with the process at `endCpu`: ends the stage open then. Reports
    // after it are ignored.
    void finish(std::chrono::steady_clock::time_point end, double endCpu);
    // The stages in the order they began, as a JSON array of {"stage", "seconds", "cpu_seconds"};
    // complete once finish() has run.
    std::string json() const;

private:
    struct Stage {
        std::string name;
        double seconds = 0;
        double cpuSeconds = 0;
    };

    void report(std::string_view stage);
    void close(std::chrono::steady_clock::time_point now, double cpu);

    Progress progress_;
    std::mutex mutex_;
    std::vector<Stage> stages_;
    std::chrono::steady_clock::time_point began_;
    double beganCpu_ = 0;
    bool finished_ = false;
};

} // namespace stepscope::bench
