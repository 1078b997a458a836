// `stepscope-cli bench memory [--events-list N,..] [--repeat R]`: the memory profile on synthetic
// profiles with one GPU (about a fifth of the events are its allocator events, all on
// GPU_0_bfc), each figure beside a baseline measured in the same run:
//   - analysis: computeMemoryProfile (adapter, sort, repairs, peak, breakdown) vs. one bare pass
//     decoding every allocator event's stats (Profile::memoryEvent), the least it must read;
//   - frame: the memory timeline at 1920x1080 (downsampled per frame, then drawn by QCustomPlot)
//     vs. QCustomPlot handed every event once, on the same frames: the whole timeline, 10%, 1%
//     and 0.1% of it at five places, then a pan across it at 1% in 20 steps.
// One JSON line per figure and size.
#include <QApplication>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <qcustomplot.h>
#include <string>
#include <vector>

#include "bench/PaintingApp.h"
#include "bench/PaintingBenches.h"
#include "model/CountText.h"
#include "model/ProfileLoader.h"
#include "model/analysis/MemoryProfile.h"
#include "model/synthetic/SyntheticProfile.h"
#include "views/memory_profile/MemoryTimelineChart.h"

namespace stepscope::bench {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Timing {
    double best = 0, median = 0;
};

Timing timeIt(int repeat, const std::function<void()>& work) {
    std::vector<double> s;
    for (int i = 0; i < repeat; ++i) {
        const auto t0 = Clock::now();
        work();
        s.push_back(secondsSince(t0));
    }
    std::sort(s.begin(), s.end());
    const size_t n = s.size();
    return {s.front(), n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2};
}

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(std::ceil(p * double(v.size()))) - 1)];
}

struct Frame {
    double t0, t1;
};

std::vector<Frame> benchFrames(double lo, double hi) {
    const double span = hi - lo;
    std::vector<Frame> frames;
    for (double zoom : {1.0, 0.1, 0.01, 0.001}) {
        const double w = span * zoom;
        for (int i = 0; i < 5; ++i) {
            const double start = lo + (span - w) * (0.1 + 0.2 * i);
            frames.push_back({start, start + w});
        }
    }
    const double w = span * 0.01;
    for (int step = 0; step < 20; ++step) {
        const double start = lo + (span - w) * 0.37 + double(step) * w / 10;
        frames.push_back({start, start + w});
    }
    return frames;
}

// Milliseconds per frame: set the range (the chart downsamples on the change) and paint now.
std::vector<double> frameTimes(MemoryTimelineChart& chart, const std::vector<Frame>& frames,
                               size_t* maxPoints) {
    std::vector<double> ms;
    for (const Frame& f : frames) {
        const auto t0 = Clock::now();
        chart.plot()->xAxis->setRange(f.t0, f.t1);
        chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
        ms.push_back(secondsSince(t0) * 1e3);
        *maxPoints = std::max(*maxPoints, chart.drawnPoints());
    }
    return ms;
}

} // namespace

int runBenchMemory(const std::vector<std::string>& args) {
    const auto app = startPaintingApp(true);
    std::vector<uint64_t> sizes = {5'000'000};
    uint64_t repeat = 3;
    for (size_t i = 0; i < args.size(); ++i) {
        const bool hasValue = i + 1 < args.size();
        if (args[i] == "--events-list" && hasValue) {
            const auto list = parseCountList(args[i + 1], 1000, kMaxSyntheticEvents);
            if (!list) return std::fprintf(stderr, "bench memory: bad --events-list\n"), 2;
            sizes = *list;
            ++i;
        } else if (args[i] == "--repeat" && hasValue && parseCount(args[i + 1], 1, 100)) {
            repeat = *parseCount(args[i + 1], 1, 100);
            ++i;
        } else {
            std::fprintf(stderr, "usage: stepscope-bench memory [--events-list N,N,..] "
                                 "[--repeat R]\n");
            return 2;
        }
    }

    for (uint64_t size : sizes) {
        SyntheticOptions options;
        options.events = size;
        options.gpus = 1;
        const LoadResult loaded =
            loadXSpaceBytes(generateSyntheticXSpace(options, "bench"), "bench");
        if (!loaded.ok()) {
            std::fprintf(stderr, "bench memory: synthetic profile failed to load: %s\n",
                         loaded.error.c_str());
            return 1;
        }
        const Profile& p = *loaded.profile;

        volatile int64_t sink = 0;
        const Timing baseline = timeIt(int(repeat), [&] {
            int64_t total = 0;
            p.memoryEvents().forEach(
                [&](EventIndex e, StringId) { total += p.memoryEvent(e).bytesAllocated; });
            sink = sink + total;
        });
        auto memory = std::make_shared<MemoryProfile>();
        const Timing analysis = timeIt(int(repeat), [&] { *memory = computeMemoryProfile(p); });
        if (memory->series.empty()) {
            std::fprintf(stderr, "bench memory: the synthetic profile has no allocator events\n");
            return 1;
        }
        const MemorySeries& series = memory->series.front();
        std::printf("{\"bench\":\"memory\",\"figure\":\"analysis\",\"events\":%zu,"
                    "\"allocator_events\":%zu,\"seconds\":%.6f,\"median_seconds\":%.6f,"
                    "\"baseline_seconds\":%.6f,\"ratio\":%.2f,\"repeat\":%llu}\n",
                    p.eventCount(), p.memoryEvents().size(), analysis.best, analysis.median,
                    baseline.best, baseline.best > 0 ? analysis.best / baseline.best : 0.0,
                    static_cast<unsigned long long>(repeat));
        std::fflush(stdout);

        MemoryTimelineChart chart;
        chart.setAttribute(Qt::WA_DontShowOnScreen);
        chart.resize(1920, 1080);
        chart.show();
        QCoreApplication::processEvents();
        const double lo = double(series.records.front().timePs) / 1e9;
        const double hi = double(series.records.back().timePs) / 1e9;
        const std::vector<Frame> frames = benchFrames(lo, hi);
        size_t points = 0, baselinePoints = 0;
        chart.setSeries(memory, &series);
        const std::vector<double> fast = frameTimes(chart, frames, &points);
        chart.setDownsampling(false);
        const std::vector<double> all = frameTimes(chart, frames, &baselinePoints);
        std::printf("{\"bench\":\"memory\",\"figure\":\"frame\",\"width\":1920,\"height\":1080,"
                    "\"records\":%zu,\"frames\":%zu,\"p50_ms\":%.3f,\"p99_ms\":%.3f,"
                    "\"max_points\":%zu,\"baseline_p50_ms\":%.3f,\"baseline_p99_ms\":%.3f,"
                    "\"baseline_points\":%zu,\"p99_ratio\":%.3f}\n",
                    series.records.size(), frames.size(), percentile(fast, 0.5),
                    percentile(fast, 0.99), points, percentile(all, 0.5), percentile(all, 0.99),
                    baselinePoints, percentile(fast, 0.99) / percentile(all, 0.99));
        std::fflush(stdout);
    }
    return 0;
}

} // namespace stepscope::bench
