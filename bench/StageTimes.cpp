#include "bench/StageTimes.h"

#include "bench/BenchRepeat.h"
#include "model/Json.h"

namespace stepscope::bench {

StageTimes::StageTimes(std::chrono::steady_clock::time_point start, double startCpu)
    : progress_([this](std::string_view stage, double) { report(stage); })
    , began_(start)
    , beganCpu_(startCpu) {}

void StageTimes::report(std::string_view stage) {
    const std::lock_guard lock(mutex_);
    if (finished_ || (!stages_.empty() && stages_.back().name == stage)) return;
    const auto now = std::chrono::steady_clock::now();
    const double cpu = processCpuSeconds();
    if (!stages_.empty()) close(now, cpu);
    stages_.push_back({std::string(stage), 0, 0});
    if (stages_.size() == 1) return; // the first stage runs from the start
    began_ = now;
    beganCpu_ = cpu;
}

void StageTimes::close(std::chrono::steady_clock::time_point now, double cpu) {
    stages_.back().seconds = seconds(now - began_);
    stages_.back().cpuSeconds = cpu - beganCpu_;
}

void StageTimes::finish(std::chrono::steady_clock::time_point end, double endCpu) {
    const std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (!stages_.empty()) close(end, endCpu);
}

std::string StageTimes::json() const {
    JsonWriter out;
    out.beginArray();
    for (const Stage& s : stages_)
        out.beginObject()
            .field("stage", s.name)
            .field("seconds", s.seconds)
            .field("cpu_seconds", s.cpuSeconds)
            .endObject();
    out.endArray();
    return out.take();
}

} // namespace stepscope::bench
