// `stepscope-cli bench timeline`: frame times of the trace viewer's renderer at 1920x1080 on
// synthetic profiles, beside a naive renderer (one rectangle per event in the window) measured
// on the same frames in the same run.
#include <QFontMetrics>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <time.h>
#include <vector>

#include "bench/BenchRepeat.h"
#include "bench/PaintingApp.h"
#include "bench/PaintingBenches.h"
#include "bench/SyntheticLoad.h"
#include "model/CountText.h"
#include "model/ProfileLoader.h"
#include "model/synthetic/SyntheticProfile.h"
#include "views/trace/EventPalette.h"
#include "views/trace/TimelineLayout.h"
#include "views/trace/TimelineRenderer.h"

namespace stepscope::bench {

namespace {

constexpr int kWidth = 1920, kHeight = 1080;

struct BenchFrame {
    TimeRange visible;
    int scrollY = 0;
};

// Whole, 10%, 1% and 0.01% of the span at several places and two scroll positions, then a pan
// across the profile at 1% zoom and one at 0.01%, 50 steps each.
std::vector<BenchFrame> benchFrames(int64_t span, int midScroll) {
    std::vector<BenchFrame> frames;
    for (double zoom : {1.0, 0.1, 0.01, 0.0001}) {
        const int64_t w =
            std::max<int64_t>(ZoomControl::kMinSpanPs, std::llround(double(span) * zoom));
        for (int i = 0; i < 5; ++i) {
            const int64_t start = std::llround(double(span - w) * (0.1 + 0.2 * i));
            frames.push_back({{start, start + w}, i % 2 ? midScroll : 0});
        }
    }
    for (double zoom : {0.01, 0.0001}) {
        const int64_t w =
            std::max<int64_t>(ZoomControl::kMinSpanPs, std::llround(double(span) * zoom));
        const int64_t origin = std::llround(double(span - w) * 0.37);
        for (int step = 0; step < 50; ++step) {
            const int64_t start = std::min(span - w, origin + int64_t(step) * (w / 10));
            frames.push_back({{start, start + w}, 0});
        }
    }
    return frames;
}

// The baseline: every event of every visible lane drawn as its own rectangle, labelled where
// wide enough, as a timeline without level of detail does.
class NaiveRenderer {
public:
    NaiveRenderer(const Profile& p, const TimelineLayout& l)
        : profile_(p)
        , layout_(l)
        , palette_(p) {
        font_.setPixelSize(11);
    }

    void paint(QPainter& painter, const TimelineFrame& f) {
        const QRect area = TimelineRenderer::timelineRect(f.size);
        painter.fillRect(QRect(QPoint(0, 0), f.size), Qt::white);
        painter.setFont(font_);
        const QFontMetrics fm(font_);
        const double scale = double(area.width()) / double(f.visible.span());
        const auto& rows = layout_.rows();
        for (size_t i = layout_.firstRowBelow(f.scrollY);
             i < rows.size() && rows[i].y < f.scrollY + area.height(); ++i) {
            const TimelineRow& row = rows[i];
            if (row.kind != TimelineRow::Kind::Track) continue;
            for (uint32_t d = 0; d < row.depthCount; ++d) {
                const int y =
                    TimelineRenderer::canvasY(row.y, f) + int(d) * TimelineLayout::kLaneHeight;
                const EventRange r =
                    profile_.eventsInWindow(row.track, d, f.visible.start, f.visible.end);
                for (EventIndex e = r.begin; e < r.end; ++e) {
                    const double x0 =
                        std::max(-2.0, double(profile_.start(e) - f.visible.start) * scale);
                    const double x1 = std::min(area.width() + 2.0,
                                               double(profile_.end(e) - f.visible.start) * scale);
                    const QRectF rect(area.left() + x0, y + 1, std::max(1.0, x1 - x0),
                                      TimelineLayout::kLaneHeight - 2);
                    painter.fillRect(rect, palette_.colorOf(e));
                    if (rect.width() >= TimelineRenderer::kMinLabelPx) {
                        const std::string_view n = profile_.name(e);
                        const QString text =
                            fm.elidedText(QString::fromUtf8(n.data(), qsizetype(n.size())),
                                          Qt::ElideRight, int(rect.width()) - 6);
                        painter.drawText(rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter, text);
                    }
                }
            }
        }
    }

private:
    const Profile& profile_;
    const TimelineLayout& layout_;
    EventPalette palette_;
    QFont font_;
};

struct Stats {
    double p50 = 0, p99 = 0, max = 0, mean = 0;
    double cpuP50 = 0, cpuP99 = 0; // the painting thread's CPU time per frame
};

Stats measure(const std::vector<BenchFrame>& frames,
              const std::function<void(QPainter&, const TimelineFrame&)>& paint) {
    QImage image(kWidth, kHeight, QImage::Format_RGB32);
    std::vector<double> ms;
    // One frame first so that fonts and glyph caches are warm for both renderers alike.
    {
        QPainter p(&image);
        paint(p, {QSize(kWidth, kHeight), frames.front().visible, frames.front().scrollY});
    }
    std::vector<double> cpuMs;
    for (const BenchFrame& bf : frames) {
        const double c0 = threadCpuSeconds() * 1e3;
        const auto t0 = std::chrono::steady_clock::now();
        {
            QPainter p(&image);
            paint(p, {QSize(kWidth, kHeight), bf.visible, bf.scrollY});
        }
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
        cpuMs.push_back(threadCpuSeconds() * 1e3 - c0);
    }
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    auto pct = [&](double q) {
        const size_t i = size_t(std::ceil(q * double(sorted.size()))) - 1;
        return sorted[std::min(i, sorted.size() - 1)];
    };
    Stats s;
    s.p50 = pct(0.50);
    s.p99 = pct(0.99);
    s.max = sorted.back();
    std::sort(cpuMs.begin(), cpuMs.end());
    s.cpuP50 =
        cpuMs[std::min(size_t(std::ceil(0.50 * double(cpuMs.size()))) - 1, cpuMs.size() - 1)];
    s.cpuP99 =
        cpuMs[std::min(size_t(std::ceil(0.99 * double(cpuMs.size()))) - 1, cpuMs.size() - 1)];
    for (double v : ms) s.mean += v / double(ms.size());
    return s;
}

} // namespace

int runBenchTimeline(const std::vector<std::string>& args) {
    const auto app = startPaintingApp(false);
    std::vector<uint64_t> sizes = {1000000, 10000000};
    std::string file;
    bool withNaive = true;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--events-list" && i + 1 < args.size()) {
            const auto list = parseCountList(args[++i], 1, kMaxSyntheticEvents);
            if (!list) {
                std::fprintf(stderr, "bench timeline: --events-list wants positive integers "
                                     "separated by commas, e.g. 1000000,10000000\n");
                return 2;
            }
            sizes = *list;
        } else if (args[i] == "--no-naive") {
            withNaive = false;
        } else if (args[i] == "--file" && i + 1 < args.size()) {
            file = args[++i];
        } else {
            std::fprintf(stderr, "usage: stepscope-bench timeline [--events-list N,M,...] "
                                 "[--file PATH] [--no-naive]\n"
                                 "  --file PATH  measure on this profile instead of synthetic "
                                 "ones\n");
            return 2;
        }
    }
    // One synthetic profile per size, or the one file given.
    const size_t runs = file.empty() ? sizes.size() : 1;
    for (size_t run = 0; run < runs; ++run) {
        SyntheticOptions options;
        if (file.empty()) options.events = sizes[run];
        const LoadResult loaded =
            file.empty() ? loadSyntheticProfile(options, "bench-host") : loadPath(file);
        if (!loaded.ok()) {
            std::fprintf(stderr, "bench timeline: could not load the profile: %s\n",
                         loaded.error.c_str());
            return 1;
        }
        const Profile& profile = *loaded.profile;
        TimelineLayout layout(profile);
        const int visibleHeight = kHeight - TimelineRenderer::kAxisHeight;
        const int midScroll = std::max(0, layout.totalHeight() / 2 - visibleHeight / 2);
        const std::vector<BenchFrame> frames = benchFrames(profile.durationPs(), midScroll);

        TimelineRenderer renderer(profile, layout);
        size_t maxBlocks = 0;
        const Stats lod = measure(frames, [&](QPainter& p, const TimelineFrame& f) {
            renderer.paintBase(p, f);
            maxBlocks = std::max(maxBlocks, renderer.lastBlockCount());
        });
        Stats naive;
        if (withNaive) {
            NaiveRenderer baseline(profile, layout);
            naive =
                measure(frames, [&](QPainter& p, const TimelineFrame& f) { baseline.paint(p, f); });
        }
        auto line = [&](const char* name, const Stats& s, double ratio) {
            std::printf(
                "{\"bench\":\"timeline\",\"events\":%zu,\"renderer\":\"%s\",\"width\":%d,"
                "\"height\":%d,\"frames\":%zu,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,"
                "\"mean_ms\":%.3f,\"cpu_p50_ms\":%.3f,\"cpu_p99_ms\":%.3f,\"p99_vs_naive\":%.4f",
                profile.eventCount(), name, kWidth, kHeight, frames.size(), s.p50, s.p99, s.max,
                s.mean, s.cpuP50, s.cpuP99, ratio);
            if (std::string(name) == "lod")
                std::printf(",\"max_blocks_per_frame\":%zu,\"bar_p99_ms\":16,\"meets_bar\":%s",
                            maxBlocks, s.p99 <= 16.0 ? "true" : "false");
            std::printf("}\n");
        };
        line("lod", lod, withNaive && naive.p99 > 0 ? lod.p99 / naive.p99 : 0);
        if (withNaive) line("naive", naive, 1.0);
        std::fflush(stdout);
    }
    return 0;
}

} // namespace stepscope::bench
