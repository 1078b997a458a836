#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"

namespace stepscope {

// XProf's tf.data bottleneck analysis (xprof/convert/xplane_to_tf_data_stats.cc, with the event
// links of tsl/profiler/utils/group_events.cc EventForest::ConnectTfDataEvents):
// - iterator events: host events named "Iterator::<A>::<B>::..." with an `id` stat (the
//   iterator's id; XProf's StatType kStepId is spelled "id") and, below the root, a `parent_id`
//   stat; the iterator's name is the last component, the long name the whole event name; a root
//   iterator's name has one component
//   ("Iterator::Prefetch"), and each root iterator id is one input pipeline;
// - an iterator's children are the iterator events it directly encloses on its thread, plus, across
//   threads, the producer's iterator: a "<Kind>Consume" event (Prefetch, ParallelInterleave,
//   ParallelMap, MapAndBatch, ParseExample, ParallelBatch) inside the iterator, with an
//   `element_id`, is matched to the "<Kind>Produce" event of the same element whose first
//   iterator's `parent_id` is this iterator's id;
// - per execution (one root iterator event): each iterator's calls, duration and self time
//   (duration minus the time its children overlap it) summed over its events; an iterator is
//   blocking when it is reached from the root through children that overlap their parent in time;
//   the bottleneck is the blocking iterator with the largest self time;
// - per pipeline: executions sorted by latency (slowest first), mean (integer ps, as XProf), min
//   and max latency, slow calls (latency > 50 µs, the tf.data performance guide's threshold);
// - bottleneck analysis: for every pipeline of every host, its slowest execution's bottleneck,
//   sorted by the pipeline's max latency; the run is input bound when the slowest is over 50 µs.
// Stepscope calls the blocking iterators of an execution its critical path.
// Departures: device input pipelines (XProf's "Device:N", found from a TPU-only event) are not
// told apart, every pipeline is a host pipeline; pipelines are numbered "Host:N" per host in the
// order of their first execution (XProf numbers them in hash-map order).

struct TfDataIterator {
    int64_t id = 0;
    int64_t parentId = 0; // 0: none (a root), as XProf's proto default
    std::string name;     // "Map"
    std::string longName; // "Iterator::Prefetch::Map"
    bool async = false;   // XProf's asynchronous iterator kinds (Prefetch, ParallelMap, ...)
};

struct TfDataIteratorStat {
    int64_t id = 0;
    int64_t startPs = 0; // its first event in the execution
    int64_t durationPs = 0, selfPs = 0;
    int64_t calls = 0;
    bool blocking = false; // on the critical path
};

struct TfDataExecution {
    EventIndex root = kNoIndex;
    int64_t beginPs = 0, latencyPs = 0;
    std::vector<TfDataIteratorStat> iterators; // by iterator id
    int64_t bottleneckId = 0;                  // 0: none
    int64_t bottleneckSelfPs = 0;
};

struct TfDataPipeline {
    std::string host;
    std::string name; // "Host:0"
    int64_t rootId = 0;
    std::vector<TfDataExecution> executions; // slowest first
    int64_t meanLatencyPs = 0, minLatencyPs = 0, maxLatencyPs = 0;
    int64_t slowCalls = 0;
};

// The kind of bottleneck XProf's GetBottleneckType assigns to an iterator name, which picks the
// advice.
enum class TfDataBottleneckKind : uint8_t {
    SlowSource,
    SlowDataService,
    SlowRemoteSource,
    SlowTransformationWithParallelVersion,
    SlowTransformationWithoutParallelVersion,
    Other,
};
TfDataBottleneckKind tfDataBottleneckKind(std::string_view iteratorName);
// The advice for that kind, after the tf.data performance guide (plain text).
std::string tfDataAdvice(TfDataBottleneckKind kind);

struct TfDataBottleneckRow {
    size_t pipeline = 0; // into TfDataAnalysis::pipelines
    std::string iteratorName, iteratorLongName;
    int64_t iteratorSelfPs = 0;
    TfDataBottleneckKind kind = TfDataBottleneckKind::Other;
};

struct TfDataHostIterators {
    std::string host;
    std::vector<TfDataIterator> iterators; // by id
    const TfDataIterator* find(int64_t id) const;
};

struct TfDataAnalysis {
    std::vector<TfDataHostIterators> hosts;
    std::vector<TfDataPipeline> pipelines;     // by host, then name
    std::vector<TfDataBottleneckRow> analysis; // slowest pipeline first
    bool inputBound = false;
    std::string summary;

    const TfDataIterator* iterator(const TfDataPipeline& p, int64_t id) const;
};

inline constexpr int64_t kTfDataSlowCallPs = 50'000'000; // 50 µs

bool hasTfDataEvents(const Profile& profile);
TfDataAnalysis computeTfDataBottleneck(const Profile& profile, const Progress* progress = nullptr);

// Per pipeline: Host, Pipeline, Executions, Mean/Min/Max latency (µs), Slow calls (> 50 µs),
// Bottleneck, Bottleneck self time (µs), Bottleneck long name, Advice kind.
Table tfDataPipelineTable(const TfDataAnalysis& analysis);
// The iterators of one execution: Iterator, Long name, Parent, Start (µs from the execution's
// start), Duration (µs), Self time (µs), Calls, Critical path, Bottleneck.
Table tfDataExecutionTable(const TfDataAnalysis& analysis, const TfDataPipeline& pipeline,
                           const TfDataExecution& execution);
std::string tfDataBottleneckJson(const TfDataAnalysis& analysis);

} // namespace stepscope
