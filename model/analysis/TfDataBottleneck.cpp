#include "model/analysis/TfDataBottleneck.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>

#include "model/Json.h"
#include "model/ToolId.h"

namespace stepscope {

namespace {

constexpr std::string_view kIteratorPrefix = "Iterator::";
constexpr double kPsPerUs = 1e6;

enum class EventKind : uint8_t { Other, Iterator, Produce, Consume };

bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}

EventKind kindOf(std::string_view name) {
    if (startsWith(name, kIteratorPrefix)) return EventKind::Iterator;
    // tsl's HostEventType names of the producer/consumer pairs that ConnectTfDataEvents links.
    static const std::string_view kinds[] = {"Prefetch",    "ParallelInterleave", "ParallelMap",
                                             "MapAndBatch", "ParseExample",       "ParallelBatch"};
    for (std::string_view k : kinds) {
        if (!startsWith(name, k)) continue;
        const std::string_view rest = name.substr(k.size());
        if (rest == "Produce") return EventKind::Produce;
        if (rest == "Consume") return EventKind::Consume;
    }
    return EventKind::Other;
}

// XProf's IsAsyncIterator.
bool isAsyncIterator(std::string_view name) {
    static const std::string_view async[] = {
        "Prefetch",    "ParallelInterleave",       "ParallelMap",  "ParseExample", "MapAndBatch",
        "DataService", "LegacyParallelInterleave", "ParallelBatch"};
    return std::find(std::begin(async), std::end(async), name) != std::end(async);
}

// The components of an iterator's long name after "Iterator::".
size_t componentCount(std::string_view longName) {
    size_t n = 1, at = 0;
    while ((at = longName.find("::", at)) != std::string_view::npos) {
        ++n;
        at += 2;
    }
    return n - 1; // "Iterator" itself is not a component
}

std::string_view lastComponent(std::string_view longName) {
    const size_t at = longName.rfind("::");
    return at == std::string_view::npos ? longName : longName.substr(at + 2);
}

std::optional<int64_t> intStat(const Profile& p, EventIndex e, std::string_view key) {
    const std::optional<StatValue> s = p.findStat(e, key);
    if (!s || !s->isNumber()) return std::nullopt;
    return s->asInt();
}

// The innermost event that encloses `e` on its own line (EventForest's intra-thread parent).
EventIndex enclosing(const Profile& p, EventIndex e) {
    const uint32_t track = p.trackOf(e);
    const int64_t s = p.start(e), en = p.end(e);
    for (uint32_t d = p.depthOf(e); d-- > 0;) {
        const EventRange r = p.eventsInWindow(track, d, s, s + 1);
        for (EventIndex a = r.begin; a < r.end; ++a)
            if (p.start(a) <= s && p.end(a) >= en) return a;
    }
    return kNoIndex;
}

struct HostEvents {
    std::string name;
    std::vector<EventIndex> iterators; // with an `id` stat, in event order
    std::vector<EventIndex> produces, consumes;
};

// One host's iterator forest.
class Forest {
public:
    Forest(const Profile& p, const HostEvents& h)
        : p_(p) {
        for (EventIndex e : h.iterators) id_[e] = *intStat(p, e, "id");
        for (EventIndex e : h.iterators) {
            const EventIndex parent = enclosing(p, e);
            if (parent != kNoIndex && id_.count(parent)) children_[parent].push_back(e);
        }
        // Producer side: the outermost iterator event inside each produce event, keyed by its
        // parent_id and the produced element.
        std::map<std::pair<int64_t, int64_t>, std::vector<EventIndex>> produced;
        for (EventIndex pe : h.produces) {
            const std::optional<int64_t> element = intStat(p, pe, "element_id");
            if (!element) continue;
            const uint32_t track = p.trackOf(pe);
            EventIndex best = kNoIndex;
            for (uint32_t d = 0; d < p.tracks()[track].depthCount; ++d) {
                const EventRange r = p.eventsInWindow(track, d, p.start(pe), p.end(pe));
                for (EventIndex a = r.begin; a < r.end; ++a) {
                    if (a == pe || !id_.count(a)) continue;
                    if (p.start(a) < p.start(pe) || p.end(a) > p.end(pe)) continue;
                    if (best == kNoIndex || p.duration(a) > p.duration(best)) best = a;
                }
                if (best != kNoIndex) break;
            }
            if (best == kNoIndex) continue;
            const std::optional<int64_t> parentId = intStat(p, best, "parent_id");
            if (parentId) produced[{*parentId, *element}].push_back(best);
        }
        // Consumer side: the iterator that encloses the consume event gets those producers.
        for (EventIndex ce : h.consumes) {
            const std::optional<int64_t> element = intStat(p, ce, "element_id");
            if (!element) continue;
            const EventIndex consumer = enclosing(p, ce);
            const auto id = id_.find(consumer);
            if (id == id_.end()) continue;
            const auto it = produced.find({id->second, *element});
            if (it == produced.end()) continue;
            std::vector<EventIndex>& c = children_[consumer];
            c.insert(c.end(), it->second.begin(), it->second.end());
        }
    }

    int64_t id(EventIndex e) const { return id_.at(e); }

    // XProf's ProcessIteratorEvent.
    void process(EventIndex e, std::map<int64_t, TfDataIteratorStat>& stats, bool blocking,
                 int level = 0) const {
        if (level > 100) return;
        const int64_t iteratorId = id_.at(e);
        auto [it, fresh] = stats.try_emplace(iteratorId);
        TfDataIteratorStat& s = it->second;
        if (fresh) {
            s.id = iteratorId;
            s.startPs = p_.start(e);
        }
        s.durationPs += p_.duration(e);
        int64_t self = p_.duration(e);
        const auto c = children_.find(e);
        if (c != children_.end()) {
            for (EventIndex child : c->second) {
                const int64_t overlap = std::max<int64_t>(
                    0, std::min(p_.end(e), p_.end(child)) - std::max(p_.start(e), p_.start(child)));
                process(child, stats, blocking && overlap > 0, level + 1);
                self -= overlap; // XProf assumes children do not overlap each other
            }
        }
        TfDataIteratorStat& after = stats.at(iteratorId); // `stats` may have grown
        after.selfPs += self;
        after.blocking = after.blocking || blocking;
        ++after.calls;
    }

private:
    const Profile& p_;
    std::unordered_map<EventIndex, int64_t> id_;
    std::unordered_map<EventIndex, std::vector<EventIndex>> children_;
};

const char* kindName(TfDataBottleneckKind k) {
    switch (k) {
    case TfDataBottleneckKind::SlowSource:
        return "slow source";
    case TfDataBottleneckKind::SlowDataService:
        return "slow tf.data service";
    case TfDataBottleneckKind::SlowRemoteSource:
        return "slow remote source";
    case TfDataBottleneckKind::SlowTransformationWithParallelVersion:
        return "slow transformation (has a parallel version)";
    case TfDataBottleneckKind::SlowTransformationWithoutParallelVersion:
        return "slow transformation (sequential)";
    case TfDataBottleneckKind::Other:
        return "other";
    }
    return "other";
}

} // namespace

TfDataBottleneckKind tfDataBottleneckKind(std::string_view name) {
    // XProf's GetBottleneckType table.
    using K = TfDataBottleneckKind;
    static const std::pair<std::string_view, K> table[] = {
        {"TFRecord", K::SlowSource},
        {"SSTable", K::SlowSource},
        {"RecordIO", K::SlowSource},
        {"Spanner", K::SlowSource},
        {"TFColumn", K::SlowSource},
        {"SleepwalkRemoteDataset", K::SlowSource},
        {"TextLine", K::SlowSource},
        {"StitchedTimelineDataset", K::SlowSource},
        {"DateKeyDataset", K::SlowSource},
        {"CapacitorProto", K::SlowSource},
        {"LMDB", K::SlowSource},
        {"ExternalDataset", K::SlowSource},
        {"PearModel", K::SlowSource},
        {"FixedLengthRecordV2", K::SlowSource},
        {"FromTensor", K::SlowSource},
        {"TensorSlice", K::SlowSource},
        {"Generator", K::SlowSource},
        {"SyntheticDatasetOp", K::SlowSource},
        {"DataService", K::SlowDataService},
        {"GuzzlerDataGuzzlerRemoteDataset", K::SlowRemoteSource},
        {"ReverbDataset", K::SlowRemoteSource},
        {"DatasetSampleGame", K::SlowRemoteSource},
        {"Courier", K::SlowRemoteSource},
        {"ReverbEpisodeDataset", K::SlowRemoteSource},
        {"Map", K::SlowTransformationWithParallelVersion},
        {"Interleave", K::SlowTransformationWithParallelVersion},
        {"Filter", K::SlowTransformationWithoutParallelVersion},
        {"Batch", K::SlowTransformationWithoutParallelVersion},
        {"Unbatch", K::SlowTransformationWithoutParallelVersion},
    };
    for (const auto& [n, k] : table)
        if (n == name) return k;
    return K::Other;
}

std::string tfDataAdvice(TfDataBottleneckKind kind) {
    switch (kind) {
    case TfDataBottleneckKind::SlowSource:
        return "Reading from this source is slow. Keep the input data close to the host (same "
               "cell or region), and read it in parallel, e.g. interleave over several files "
               "with num_parallel_calls (tf.data performance guide: parallelizing data "
               "extraction).";
    case TfDataBottleneckKind::SlowDataService:
        return "Fetching from the tf.data service is slow. Profile the service's workers to see "
               "why.";
    case TfDataBottleneckKind::SlowRemoteSource:
        return "The remote data source is slow. Profile the host that serves it to see why.";
    case TfDataBottleneckKind::SlowTransformationWithParallelVersion:
        return "Run this transformation in parallel with num_parallel_calls=tf.data.AUTOTUNE. If "
               "the data fits in memory and nothing upstream is random (shuffle), add cache() "
               "after it (tf.data performance guide: parallelizing data transformation, "
               "caching).";
    case TfDataBottleneckKind::SlowTransformationWithoutParallelVersion:
        return "This transformation runs sequentially. Shard the input and run several copies of "
               "the pipeline, combining their outputs; if the data fits in memory and nothing "
               "upstream is random, add cache() after it (tf.data performance guide).";
    case TfDataBottleneckKind::Other:
        break;
    }
    return "See the tf.data performance analysis guide "
           "(https://www.tensorflow.org/guide/data_performance_analysis).";
}

const TfDataIterator* TfDataHostIterators::find(int64_t id) const {
    const auto it = std::lower_bound(iterators.begin(), iterators.end(), id,
                                     [](const TfDataIterator& i, int64_t v) { return i.id < v; });
    return it != iterators.end() && it->id == id ? &*it : nullptr;
}

const TfDataIterator* TfDataAnalysis::iterator(const TfDataPipeline& p, int64_t id) const {
    for (const TfDataHostIterators& h : hosts)
        if (h.host == p.host) return h.find(id);
    return nullptr;
}

bool hasTfDataEvents(const Profile& profile) {
    for (const EventMetadata& m : profile.metadata())
        if (profile.planes()[m.plane].kind == PlaneKind::Host &&
            startsWith(profile.str(m.name), kIteratorPrefix))
            return true;
    return false;
}

TfDataAnalysis computeTfDataBottleneck(const Profile& p, const Progress* progress) {
    TfDataAnalysis out;
    std::vector<EventKind> metaKind(p.metadata().size());
    for (size_t m = 0; m < metaKind.size(); ++m) metaKind[m] = kindOf(p.str(p.metadata()[m].name));
    std::map<uint32_t, HostEvents> hosts;
    for (const Track& t : p.tracks()) {
        const Plane& plane = p.planes()[t.plane];
        if (t.derived || plane.kind != PlaneKind::Host) continue;
        HostEvents& h = hosts[plane.host];
        h.name = p.hosts()[plane.host].name;
        for (EventIndex e = t.firstEvent; e < t.firstEvent + t.eventCount; ++e) {
            switch (metaKind[p.metadataOf(e)]) {
            case EventKind::Iterator:
                if (intStat(p, e, "id")) h.iterators.push_back(e);
                break;
            case EventKind::Produce:
                h.produces.push_back(e);
                break;
            case EventKind::Consume:
                h.consumes.push_back(e);
                break;
            case EventKind::Other:
                break;
            }
        }
        if (progress && progress->cancelled()) return {};
    }
    for (auto& [hostIndex, h] : hosts) {
        if (h.iterators.empty()) continue;
        std::sort(h.iterators.begin(), h.iterators.end());
        const Forest forest(p, h);
        TfDataHostIterators meta;
        meta.host = h.name;
        std::map<int64_t, TfDataIterator> byId;
        std::map<int64_t, std::vector<EventIndex>> roots;
        for (EventIndex e : h.iterators) {
            const int64_t id = forest.id(e);
            const std::string_view longName = p.name(e);
            auto [it, fresh] = byId.try_emplace(id);
            if (fresh) {
                it->second.id = id;
                it->second.parentId = intStat(p, e, "parent_id").value_or(0);
                it->second.longName = std::string(longName);
                it->second.name = std::string(lastComponent(longName));
                it->second.async = isAsyncIterator(it->second.name);
            }
            if (componentCount(longName) == 1) roots[id].push_back(e);
        }
        for (auto& [id, m] : byId) meta.iterators.push_back(std::move(m));
        out.hosts.push_back(std::move(meta));

        // Pipelines numbered by their first execution.
        std::vector<std::pair<int64_t, int64_t>> order; // first start, root id
        for (const auto& [id, events] : roots) {
            int64_t first = p.start(events.front());
            for (EventIndex e : events) first = std::min(first, p.start(e));
            order.push_back({first, id});
        }
        std::sort(order.begin(), order.end());
        for (size_t n = 0; n < order.size(); ++n) {
            std::vector<EventIndex> events = roots[order[n].second];
            std::stable_sort(events.begin(), events.end(), [&](EventIndex a, EventIndex b) {
                return p.duration(a) > p.duration(b);
            });
            TfDataPipeline pipe;
            pipe.host = h.name;
            pipe.name = "Host:" + std::to_string(n);
            pipe.rootId = order[n].second;
            int64_t sum = 0;
            pipe.minLatencyPs = INT64_MAX;
            for (EventIndex root : events) {
                std::map<int64_t, TfDataIteratorStat> stats;
                forest.process(root, stats, true);
                TfDataExecution ex;
                ex.root = root;
                ex.beginPs = p.start(root);
                ex.latencyPs = p.duration(root);
                for (auto& [id, s] : stats) {
                    // XProf's SetBottleneckIteratorId: the blocking iterator with the most self
                    // time (the first in id order on a tie).
                    if (s.blocking && s.selfPs > ex.bottleneckSelfPs) {
                        ex.bottleneckId = id;
                        ex.bottleneckSelfPs = s.selfPs;
                    }
                    ex.iterators.push_back(s);
                }
                sum += ex.latencyPs;
                pipe.minLatencyPs = std::min(pipe.minLatencyPs, ex.latencyPs);
                pipe.maxLatencyPs = std::max(pipe.maxLatencyPs, ex.latencyPs);
                if (ex.latencyPs > kTfDataSlowCallPs) ++pipe.slowCalls;
                pipe.executions.push_back(std::move(ex));
            }
            pipe.meanLatencyPs = sum / int64_t(events.size());
            out.pipelines.push_back(std::move(pipe));
        }
        if (progress && progress->cancelled()) return {};
    }
    // XProf's SetBottleneckAnalysis: each pipeline's slowest execution, slowest pipeline first.
    for (size_t i = 0; i < out.pipelines.size(); ++i) {
        const TfDataPipeline& pipe = out.pipelines[i];
        const TfDataExecution& slowest = pipe.executions.front();
        TfDataBottleneckRow row;
        row.pipeline = i;
        row.iteratorSelfPs = slowest.bottleneckSelfPs;
        if (const TfDataIterator* it = out.iterator(pipe, slowest.bottleneckId)) {
            row.iteratorName = it->name;
            row.iteratorLongName = it->longName;
        }
        row.kind = tfDataBottleneckKind(row.iteratorName);
        out.analysis.push_back(std::move(row));
    }
    std::stable_sort(out.analysis.begin(), out.analysis.end(),
                     [&](const TfDataBottleneckRow& a, const TfDataBottleneckRow& b) {
                         return out.pipelines[a.pipeline].maxLatencyPs >
                                out.pipelines[b.pipeline].maxLatencyPs;
                     });
    // XProf's SetSummary.
    const int64_t slowest =
        out.analysis.empty() ? 0 : out.pipelines[out.analysis.front().pipeline].maxLatencyPs;
    out.inputBound = slowest > kTfDataSlowCallPs;
    if (out.inputBound)
        out.summary = "An input pipeline is slower than 50 µs: for each slow pipeline, its "
                      "bottleneck iterator and what to do about it are below.";
    else if (slowest > 0)
        out.summary = "No input pipeline is slower than 50 µs. The job can still be input bound "
                      "on workers this profile did not capture.";
    else
        out.summary = "No tf.data activity in this profile. If the job uses tf.data, capture a "
                      "longer profile.";
    return out;
}

Table tfDataPipelineTable(const TfDataAnalysis& a) {
    Table t;
    t.addColumn("Host", Table::Type::Text);
    t.addColumn("Pipeline", Table::Type::Text);
    t.addColumn("Executions", Table::Type::Int);
    t.addColumn("Mean latency (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("Min latency (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("Max latency (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("Slow calls (> 50 µs)", Table::Type::Int);
    t.addColumn("Bottleneck", Table::Type::Text, ColumnFormat::Plain,
                "Bottleneck iterator of the slowest execution");
    t.addColumn("Bottleneck self time (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("Bottleneck long name", Table::Type::Text);
    t.addColumn("Bottleneck kind", Table::Type::Text);
    for (const TfDataBottleneckRow& row : a.analysis) {
        const TfDataPipeline& p = a.pipelines[row.pipeline];
        t.addRow(
            {p.host, p.name, int64_t(p.executions.size()), double(p.meanLatencyPs) / kPsPerUs,
             double(p.minLatencyPs) / kPsPerUs, double(p.maxLatencyPs) / kPsPerUs, p.slowCalls,
             row.iteratorName,
             row.iteratorName.empty() ? Table::missing() : double(row.iteratorSelfPs) / kPsPerUs,
             row.iteratorLongName, std::string(kindName(row.kind))});
    }
    return t;
}

Table tfDataExecutionTable(const TfDataAnalysis& a, const TfDataPipeline& pipe,
                           const TfDataExecution& ex) {
    Table t;
    t.addColumn("Iterator", Table::Type::Text);
    t.addColumn("Long name", Table::Type::Text);
    t.addColumn("Parent", Table::Type::Text);
    t.addColumn("Start (µs)", Table::Type::Double, ColumnFormat::Microseconds,
                "From the execution's start");
    t.addColumn("Duration (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("Self time (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("Calls", Table::Type::Int);
    t.addColumn("Critical path", Table::Type::Int, ColumnFormat::Bool,
                "Blocking: reached from the root through iterators that overlap their parent");
    t.addColumn("Bottleneck", Table::Type::Int, ColumnFormat::Bool);
    for (const TfDataIteratorStat& s : ex.iterators) {
        const TfDataIterator* it = a.iterator(pipe, s.id);
        const TfDataIterator* parent = it ? a.iterator(pipe, it->parentId) : nullptr;
        t.addRow({it ? it->name : std::to_string(s.id), it ? it->longName : std::string(),
                  parent ? parent->name : std::string(), double(s.startPs - ex.beginPs) / kPsPerUs,
                  double(s.durationPs) / kPsPerUs, double(s.selfPs) / kPsPerUs, s.calls,
                  int64_t(s.blocking), int64_t(s.id == ex.bottleneckId)});
    }
    return t;
}

std::string tfDataBottleneckJson(const TfDataAnalysis& a) {
    JsonWriter json;
    json.beginObject().field("tool", toolKey(ToolId::TfDataBottleneck));
    json.field("input_bound", a.inputBound).field("summary", a.summary);
    json.key("bottleneck_analysis").beginArray();
    for (const TfDataBottleneckRow& row : a.analysis) {
        const TfDataPipeline& p = a.pipelines[row.pipeline];
        json.beginObject()
            .field("host", p.host)
            .field("input_pipeline", p.name)
            .field("max_latency_us", double(p.maxLatencyPs) / kPsPerUs)
            .field("iterator_name", row.iteratorName)
            .field("iterator_long_name", row.iteratorLongName)
            .field("iterator_latency_us", double(row.iteratorSelfPs) / kPsPerUs)
            .field("kind", std::string(kindName(row.kind)))
            .field("advice", tfDataAdvice(row.kind));
        json.key("slowest_execution").table(tfDataExecutionTable(a, p, p.executions.front()));
        json.endObject();
    }
    json.endArray();
    json.key("pipelines").table(tfDataPipelineTable(a));
    json.endObject();
    return json.take();
}

} // namespace stepscope
