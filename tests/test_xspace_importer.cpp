// The XSpace importer and log directory discovery: exact content of fixtures encoded with the
// protobuf-generated classes (an encoder independent of ours), facts about every real profile in
// ../shared/realdata, and bad input of every kind.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <random>

#include "model/LogDir.h"
#include "model/MappedFile.h"
#include "model/ProfileLoader.h"
#include "model/synthetic/SyntheticProfile.h"
#include "model/xspace/WireReader.h"
#include "xplane.pb.h"

#include <google/protobuf/io/coded_stream.h>

using namespace stepscope;
namespace pb = tensorflow::profiler;
namespace fs = std::filesystem;

namespace {

const std::string kRealData = STEPSCOPE_REALDATA;
const std::string kBert =
    kRealData + "/tf-gpu-bert/plugins/profile/2020_12_03_bert/34.83.195.179_6003.xplane.pb";

std::vector<uint8_t> bytesOf(const std::string& s) {
    return {s.begin(), s.end()};
}

std::vector<uint8_t> readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void writeFile(const std::string& path, std::span<const uint8_t> bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

void addStat(pb::XStat* s, int64_t key) {
    s->set_metadata_id(key);
}

// A small XSpace with one of everything the importer must decode.
std::string fixtureXSpace() {
    pb::XSpace space;
    space.add_hostnames("fixture-host");
    space.add_errors("tracer lost 3 events");
    space.add_warnings("clock skew corrected");

    pb::XPlane* host = space.add_planes();
    host->set_id(1);
    host->set_name("/host:CPU");
    auto& hsm = *host->mutable_stat_metadata();
    const std::pair<int64_t, const char*> hostStats[] = {
        {1, "correlation_id"},  {2, "group_id"},       {3, "tf_op"},    {4, "fragmentation"},
        {5, "bytes_allocated"}, {6, "allocator_name"}, {7, "GPU_0_bfc"}};
    for (auto [id, name] : hostStats) {
        hsm[id].set_id(id);
        hsm[id].set_name(name);
    }
    auto& hem = *host->mutable_event_metadata();
    hem[10].set_id(10);
    hem[10].set_name("model/dense/MatMul:MatMul");
    hem[11].set_id(11);
    hem[11].set_name("cudaLaunchKernel");
    hem[12].set_id(12);
    hem[12].set_name("MemoryAllocation");
    hem[13].set_id(13);
    hem[13].set_name("aggregated");
    pb::XLine* thread = host->add_lines();
    thread->set_id(4242);
    thread->set_name("tf_Compute/4242");
    thread->set_display_name("Compute thread");
    thread->set_timestamp_ns(1000);
    {
        pb::XEvent* op = thread->add_events(); // [0, 10 µs)
        op->set_metadata_id(10);
        op->set_offset_ps(0);
        op->set_duration_ps(10'000'000);
        pb::XStat* g = op->add_stats();
        addStat(g, 2);
        g->set_int64_value(7);
        pb::XEvent* launch = thread->add_events(); // [2, 3 µs) inside the op
        launch->set_metadata_id(11);
        launch->set_offset_ps(2'000'000);
        launch->set_duration_ps(1'000'000);
        pb::XStat* c = launch->add_stats();
        addStat(c, 1);
        c->set_uint64_value(99);
        pb::XEvent* alloc = thread->add_events(); // [12, 12 µs) instant
        alloc->set_metadata_id(12);
        alloc->set_offset_ps(12'000'000);
        pb::XStat* a1 = alloc->add_stats();
        addStat(a1, 5);
        a1->set_int64_value(-4096); // negative on purpose: ten-byte varint
        pb::XStat* a2 = alloc->add_stats();
        addStat(a2, 4);
        a2->set_int64_value(1); // fragmentation written as an int in some files
        pb::XStat* a3 = alloc->add_stats();
        addStat(a3, 6);
        a3->set_ref_value(7); // ref to the stat metadata named "GPU_0_bfc"
        pb::XEvent* agg = thread->add_events();
        agg->set_metadata_id(13);
        agg->set_num_occurrences(5);
    }

    pb::XPlane* gpu = space.add_planes();
    gpu->set_id(2);
    gpu->set_name("/device:GPU:0");
    auto& gsm = *gpu->mutable_stat_metadata();
    const std::pair<int64_t, const char*> gpuStats[] = {
        {1, "correlation_id"},
        {2, "kernel_details"},
        {3, "level 0"},
        {4, "regs:32 static_shared:0 dynamic_shared:8192 grid:80,1,1 block:256,1,1 occ_pct:50"},
        {5, "memcpy_details"},
        {6, "compute_cap_major"},
        {7, "compute_cap_minor"},
        {8, "core_count"},
        {9, "memory_size"},
        {10, "device_vendor"},
        {11, "clock_rate"},
        {12, "memory_bandwidth"},
        {13, "double_stat"},
        {14, "blob"}};
    for (auto [id, name] : gpuStats) {
        gsm[id].set_id(id);
        gsm[id].set_name(name);
    }
    auto addPlaneStat = [&](int64_t key) {
        pb::XStat* s = gpu->add_stats();
        addStat(s, key);
        return s;
    };
    addPlaneStat(6)->set_int64_value(8);
    addPlaneStat(7)->set_int64_value(0);
    addPlaneStat(8)->set_int64_value(108);
    addPlaneStat(9)->set_uint64_value(42949672960ull);
    addPlaneStat(10)->set_str_value("Nvidia");
    addPlaneStat(11)->set_int64_value(1410000);
    addPlaneStat(12)->set_uint64_value(1555000000000ull);
    auto& gem = *gpu->mutable_event_metadata();
    gem[1].set_id(1);
    gem[1].set_name("ampere_s16816gemm");
    gem[1].set_display_name("gemm");
    pb::XStat* metaStat = gem[1].add_stats(); // kernel_details on the metadata, as a ref
    addStat(metaStat, 2);
    metaStat->set_ref_value(4);
    gem[2].set_id(2);
    gem[2].set_name("MemcpyH2D");
    gem[3].set_id(3);
    gem[3].set_name("model/dense/MatMul");
    pb::XLine* stream = gpu->add_lines();
    stream->set_id(7);
    stream->set_name("Stream #7(Compute)");
    stream->set_timestamp_ns(1000);
    {
        pb::XEvent* k = stream->add_events(); // [4, 9 µs)
        k->set_metadata_id(1);
        k->set_offset_ps(4'000'000);
        k->set_duration_ps(5'000'000);
        pb::XStat* c = k->add_stats();
        addStat(c, 1);
        c->set_uint64_value(99);
        pb::XStat* l0 = k->add_stats();
        addStat(l0, 3);
        l0->set_str_value("model/dense/MatMul:MatMul");
        pb::XStat* d = k->add_stats();
        addStat(d, 13);
        d->set_double_value(2.5);
        pb::XStat* blob = k->add_stats();
        addStat(blob, 14);
        blob->set_bytes_value(std::string("\x00\x01\x02", 3));
    }
    pb::XLine* copies = gpu->add_lines();
    copies->set_id(8);
    copies->set_name("Stream #8(MemcpyH2D)");
    copies->set_timestamp_ns(1001); // 1 ns later than the other lines
    {
        pb::XEvent* m = copies->add_events();
        m->set_metadata_id(2);
        m->set_offset_ps(500);
        m->set_duration_ps(1'000'000);
        pb::XStat* d = m->add_stats();
        addStat(d, 5);
        d->set_str_value("size:65536 dest:0 async:1");
    }
    pb::XLine* ops = gpu->add_lines();
    ops->set_id(-559038734);
    ops->set_name("TensorFlow Ops");
    ops->set_timestamp_ns(1000);
    {
        pb::XEvent* o = ops->add_events();
        o->set_metadata_id(3);
        o->set_offset_ps(4'000'000);
        o->set_duration_ps(5'000'000);
    }
    pb::XPlane* env = space.add_planes();
    env->set_name("Task Environment");
    return space.SerializeAsString();
}

LoadResult loadFixtureBytes(const std::string& bytes) {
    return loadXSpaceBytes(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                           "fixture");
}

const Track* findTrack(const Profile& p, std::string_view name) {
    for (const Track& t : p.tracks())
        if (p.str(t.name) == name) return &t;
    return nullptr;
}

bool haveRealData() {
    return fs::exists(kRealData);
}
#define REQUIRE_REALDATA()                                                                         \
    if (!haveRealData())                                                                           \
        QSKIP(qPrintable(QString("../shared/realdata not found at %1; real-profile tests skipped") \
                             .arg(QString::fromStdString(kRealData))));

} // namespace

class TestXSpaceImporter : public QObject {
    Q_OBJECT
private slots:
    // Varints of every length from 1 to 10 bytes (encoded by protobuf), each read with 0-12 bytes
    // after it, inside its range or only in the buffer past the range's end; then varints cut
    // short by their range, whatever the buffer holds past it, and one of 11 bytes.
    void varintsOfEveryLength() {
        std::vector<uint64_t> values{0};
        for (int bits = 1; bits <= 64; ++bits) {
            values.push_back(uint64_t(1) << (bits - 1));
            values.push_back(bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1);
        }
        for (const uint64_t v : values) {
            uint8_t encoded[10];
            const size_t length =
                size_t(google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(v, encoded) -
                       encoded);
            for (const size_t after : {0, 1, 7, 8, 12}) {
                std::vector<uint8_t> bytes(encoded, encoded + length);
                bytes.resize(length + after, 0xFF); // bytes that would continue a varint
                for (const size_t range : {bytes.size(), length}) {
                    std::string error;
                    WireReader r(bytes.data(), bytes.data() + range, bytes, &error);
                    uint64_t read = 0;
                    QVERIFY2(r.varint(read, "value"), error.c_str());
                    QCOMPARE(read, v);
                    QCOMPARE(r.offset(), length);
                }
            }
        }
        const std::vector<uint8_t> cut{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
        const std::vector<uint8_t> cutShort{0x80, 0x80, 0x80, 0x01, 0, 0, 0, 0, 0, 0};
        // The first varint ends at byte 9, the second at byte 4: past each of these ranges.
        for (const auto& [bytes, range] : {std::pair{cut, 3}, {cut, 8}, {cutShort, 3}}) {
            std::string error;
            WireReader r(bytes.data(), bytes.data() + range, bytes, &error);
            uint64_t read = 0;
            QVERIFY(!r.varint(read, "XEvent.offset_ps"));
            QCOMPARE(error,
                     "at byte " + std::to_string(range) + ": truncated varint in XEvent.offset_ps");
        }
        std::vector<uint8_t> eleven(10, 0x80);
        eleven.push_back(0x01);
        std::string error;
        WireReader r(eleven.data(), eleven.data() + eleven.size(), eleven, &error);
        uint64_t read = 0;
        QVERIFY(!r.varint(read, "XEvent.offset_ps"));
        QCOMPARE(error,
                 std::string("at byte 10: malformed varint (over 10 bytes) in XEvent.offset_ps"));
    }

    void fixtureExactContent() {
        const LoadResult r = loadFixtureBytes(fixtureXSpace());
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QCOMPARE(p.hosts().size(), size_t(1));
        QCOMPARE(p.hosts()[0].errors, std::vector<std::string>{"tracer lost 3 events"});
        QCOMPARE(p.hosts()[0].hostnames, std::vector<std::string>{"fixture-host"});
        QCOMPARE(p.hosts()[0].warnings.size(), size_t(2)); // its own + the aggregated-event note
        QCOMPARE(p.hosts()[0].warnings[0], std::string("clock skew corrected"));
        QCOMPARE(p.planes().size(), size_t(3));
        QCOMPARE(p.planes()[0].kind, PlaneKind::Host);
        QCOMPARE(p.planes()[1].kind, PlaneKind::Gpu);
        QCOMPARE(p.planes()[1].deviceOrdinal, 0);
        QCOMPARE(p.planes()[2].kind, PlaneKind::Other);
        const DeviceInfo& d = p.planes()[1].device;
        QCOMPARE(d.computeCapMajor, 8);
        QCOMPARE(d.coreCount, int64_t(108));
        QCOMPARE(d.memoryBytes, uint64_t(42949672960ull));
        QCOMPARE(d.vendor, std::string("Nvidia"));
        QCOMPARE(d.clockRateKHz, int64_t(1410000));
        QCOMPARE(d.bandwidthBps, uint64_t(1555000000000ull));

        QCOMPARE(p.eventCount(), size_t(6)); // the aggregated event is not a timed event
        QCOMPARE(p.startNs(), int64_t(1000));
        QCOMPARE(p.durationPs(), int64_t(12'000'000));

        const Track* thread = findTrack(p, "tf_Compute/4242");
        QVERIFY(thread);
        QCOMPARE(p.str(thread->displayName), std::string_view("Compute thread"));
        QCOMPARE(thread->lineId, int64_t(4242));
        QCOMPARE(thread->kind, TrackKind::HostThread);
        QCOMPARE(thread->eventCount, 3u);
        QCOMPARE(thread->depthCount, 2u);
        const uint32_t threadIndex = uint32_t(thread - p.tracks().data());
        const EventRange top = p.eventsAt(threadIndex, 0);
        QCOMPARE(top.size(), 2u);
        QCOMPARE(p.name(top.begin), std::string_view("model/dense/MatMul:MatMul"));
        QCOMPARE(p.duration(top.begin), int64_t(10'000'000));
        QCOMPARE(p.groupId(top.begin), 7);
        const EventIndex alloc = top.begin + 1;
        QCOMPARE(p.name(alloc), std::string_view("MemoryAllocation"));
        QCOMPARE(p.start(alloc), int64_t(12'000'000));
        QCOMPARE(p.duration(alloc), int64_t(0));
        QVERIFY(p.memoryEvents().find(alloc));
        QCOMPARE(p.str(*p.memoryEvents().find(alloc)), std::string_view("GPU_0_bfc"));
        const MemoryEvent mem = p.memoryEvent(alloc);
        QCOMPARE(mem.bytesAllocated, int64_t(-4096));
        QCOMPARE(mem.fragmentation, 1.0);
        QCOMPARE(p.str(mem.allocator), std::string_view("GPU_0_bfc"));
        QVERIFY(!mem.deallocation);
        const EventIndex launch = p.eventsAt(threadIndex, 1).begin;
        QCOMPARE(p.name(launch), std::string_view("cudaLaunchKernel"));

        const Track* stream = findTrack(p, "Stream #7(Compute)");
        QVERIFY(stream);
        QCOMPARE(stream->kind, TrackKind::GpuStream);
        QCOMPARE(stream->streamId, int64_t(7));
        const EventIndex kernel = stream->firstEvent;
        QCOMPARE(p.start(kernel), int64_t(4'000'000));
        QCOMPARE(p.str(p.metadata()[p.metadataOf(kernel)].displayName), std::string_view("gemm"));
        const KernelDetails* k = p.kernelDetails(kernel);
        QVERIFY(k);
        QVERIFY(k->valid);
        QCOMPARE(k->registersPerThread, 32u);
        QCOMPARE(k->sharedBytes(), 8192u);
        QCOMPARE(k->grid[0], 80u);
        QCOMPARE(k->block[0], 256u);
        QCOMPARE(k->occupancyPct, 50.0);
        QCOMPARE(p.str(*p.frameworkOps().find(kernel)),
                 std::string_view("model/dense/MatMul:MatMul"));
        const auto dbl = p.findStat(kernel, "double_stat");
        QVERIFY(dbl);
        QCOMPARE(dbl->asDouble(), 2.5);
        const auto blob = p.findStat(kernel, "blob");
        QVERIFY(blob);
        QCOMPARE(blob->type, StatType::Bytes);
        QCOMPARE(p.str(blob->asString()).size(), size_t(3));
        QCOMPARE(p.flows().size(), size_t(1));
        QCOMPARE(p.flows()[0].launch, launch);
        QCOMPARE(p.flows()[0].target, kernel);

        const Track* copies = findTrack(p, "Stream #8(MemcpyH2D)");
        QVERIFY(copies);
        QCOMPARE(copies->streamFlags, uint16_t(StreamMemcpyH2D));
        QCOMPARE(p.start(copies->firstEvent), int64_t(1000 + 500)); // line starts 1 ns later
        QCOMPARE(p.memcpys().find(copies->firstEvent)->bytes, uint64_t(65536));

        const Track* ops = findTrack(p, "TensorFlow Ops");
        QVERIFY(ops);
        QCOMPARE(ops->kind, TrackKind::FrameworkOps);
        QVERIFY(!p.kernelDetails(ops->firstEvent));
    }

    void emptyLineWithoutTimestampDoesNotSetTheTimeBase() {
        // An empty line may leave timestamp_ns unset (0) while the others carry epoch times.
        pb::XSpace space;
        pb::XPlane* plane = space.add_planes();
        plane->set_name("/host:CPU");
        (*plane->mutable_event_metadata())[1].set_name("op");
        plane->add_lines()->set_name("idle thread");
        pb::XLine* busy = plane->add_lines();
        busy->set_name("main");
        busy->set_timestamp_ns(1'700'000'000'000'000'000);
        pb::XEvent* e = busy->add_events();
        e->set_metadata_id(1);
        e->set_offset_ps(5000);
        e->set_duration_ps(1000);
        const LoadResult r = loadFixtureBytes(space.SerializeAsString());
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.profile->startNs(), int64_t(1'700'000'000'000'000'005));
        QCOMPARE(r.profile->eventCount(), size_t(1));
        QCOMPARE(r.profile->tracks().size(), size_t(2));
    }

    void aggregatedEventsInAnEarlyChunkLeaveNoGap() {
        // Lines decode in chunks of 32768 events, each into rows of its own; aggregated events
        // take no row, so the rows after them move up. A first line of 32771 events (two chunks),
        // of which events 0 and 1 are aggregated, then a second line of two events.
        pb::XSpace space;
        pb::XPlane* plane = space.add_planes();
        plane->set_name("/host:CPU");
        (*plane->mutable_event_metadata())[1].set_name("op");
        (*plane->mutable_stat_metadata())[7].set_name("index");
        (*plane->mutable_stat_metadata())[8].set_name("kind");
        pb::XLine* big = plane->add_lines();
        big->set_name("big");
        big->set_timestamp_ns(1000);
        constexpr int kBig = 32771;
        for (int i = 0; i < kBig; ++i) {
            pb::XEvent* e = big->add_events();
            e->set_metadata_id(1);
            if (i < 2)
                e->set_num_occurrences(3);
            else
                e->set_offset_ps(10 * i);
            e->set_duration_ps(5);
            pb::XStat* s = e->add_stats();
            s->set_metadata_id(7);
            s->set_int64_value(i);
            if (i >= 2) continue;
            // Stats of every kind on the aggregated events, which the stat bytes must not count;
            // ids 99 and 100 have no stat metadata.
            auto stat = [e](int64_t key) {
                pb::XStat* x = e->add_stats();
                x->set_metadata_id(key);
                return x;
            };
            stat(8)->set_str_value("dropped");
            stat(8)->set_ref_value(8);
            stat(8)->set_ref_value(99);
            stat(7)->set_double_value(0.5);
            stat(100)->set_uint64_value(uint64_t(1) << 40);
        }
        pb::XLine* small = plane->add_lines();
        small->set_name("small");
        small->set_timestamp_ns(1000);
        for (int i = 0; i < 2; ++i) {
            pb::XEvent* e = small->add_events();
            e->set_metadata_id(1);
            e->set_offset_ps(7 * i);
            e->set_duration_ps(1);
        }
        // The unknown stat id the aggregated events named, in another chunk.
        pb::XStat* unknown = small->mutable_events(0)->add_stats();
        unknown->set_metadata_id(8);
        unknown->set_ref_value(99);
        const std::string bytes = space.SerializeAsString();
        for (unsigned threads : {1u, 2u}) {
            const LoadResult r = loadXSpaceBytes(
                std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "fixture",
                nullptr, threads);
            QVERIFY2(r.ok(), r.error.c_str());
            const Profile& p = *r.profile;
            QCOMPARE(p.eventCount(), size_t(kBig - 2 + 2));
            const Track* t = findTrack(p, "big");
            QVERIFY(t);
            QCOMPARE(t->eventCount, uint32_t(kBig - 2));
            // Event i of the line (from 2 on) starts at 10 i ps and carries index i.
            for (EventIndex e = t->firstEvent; e < t->firstEvent + t->eventCount; ++e) {
                const int64_t i = 2 + int64_t(e - t->firstEvent);
                QCOMPARE(p.start(e), 10 * i);
                const StatList stats = p.eventStats(e);
                QCOMPARE(stats.size(), size_t(1));
                QCOMPARE((*stats.begin()).asInt(), i);
            }
            const Track* s = findTrack(p, "small");
            QVERIFY(s);
            QCOMPARE(s->eventCount, uint32_t(2));
            QCOMPARE(p.start(s->firstEvent + 1), int64_t(7));
            QVERIFY(p.eventStats(s->firstEvent + 1).empty());
            const auto named = p.findStat(s->firstEvent, "kind");
            QVERIFY(named.has_value());
            QCOMPARE(p.str(named->asString()), std::string_view("(unknown stat 99)"));
            QCOMPARE(p.hosts()[0].warnings.back(),
                     std::string("2 aggregated events (num_occurrences) have no time and are not "
                                 "shown on the timeline"));
        }
    }

    void overflowingTimesAreRejected() {
        pb::XSpace space;
        pb::XPlane* plane = space.add_planes();
        plane->set_name("/host:CPU");
        (*plane->mutable_event_metadata())[1].set_name("op");
        pb::XLine* line = plane->add_lines();
        line->set_name("main");
        line->set_timestamp_ns(1000);
        const std::pair<int64_t, int64_t> events[] = {{1000, INT64_MAX}, {5000, 10}, {2000, 10}};
        for (auto [offset, duration] : events) {
            pb::XEvent* e = line->add_events();
            e->set_metadata_id(1);
            e->set_offset_ps(offset);
            e->set_duration_ps(duration);
        }
        const LoadResult r = loadFixtureBytes(space.SerializeAsString());
        QVERIFY(!r.ok());
        QVERIFY2(r.error.find("XEvent.duration_ps") != std::string::npos, r.error.c_str());

        // Two lines whose timestamps are too far apart to share a picosecond time base.
        pb::XSpace far;
        pb::XPlane* p2 = far.add_planes();
        p2->set_name("/host:CPU");
        (*p2->mutable_event_metadata())[1].set_name("op");
        for (int64_t ts :
             {int64_t(-9'000'000'000'000'000'000), int64_t(9'000'000'000'000'000'000)}) {
            pb::XLine* l = p2->add_lines();
            l->set_name("t");
            l->set_timestamp_ns(ts);
            pb::XEvent* e = l->add_events();
            e->set_metadata_id(1);
            e->set_duration_ps(1);
        }
        const LoadResult r2 = loadFixtureBytes(far.SerializeAsString());
        QVERIFY(!r2.ok());
        QVERIFY2(r2.error.find("timestamp_ns") != std::string::npos, r2.error.c_str());
    }

    // Before: two events of one line at -9e18 and +9e18 ps loaded, and rebasing wrapped the
    // profile's duration to -446744073708551616 ps.
    void eventsTooFarApartOnOneLineAreRejected() {
        pb::XSpace space;
        pb::XPlane* plane = space.add_planes();
        plane->set_name("/host:CPU");
        (*plane->mutable_event_metadata())[1].set_name("op");
        pb::XLine* line = plane->add_lines();
        line->set_name("main");
        line->set_timestamp_ns(0);
        for (int64_t offset :
             {int64_t(-9'000'000'000'000'000'000), int64_t(9'000'000'000'000'000'000)}) {
            pb::XEvent* e = line->add_events();
            e->set_metadata_id(1);
            e->set_offset_ps(offset);
            e->set_duration_ps(1);
        }
        const LoadResult r = loadFixtureBytes(space.SerializeAsString());
        QVERIFY(!r.ok());
        QVERIFY2(r.error.find("XEvent.offset_ps 9000000000000000000") != std::string::npos,
                 r.error.c_str());
    }

    // Before: a valid XSpace whose first plane is 91 or 123 bytes long starts with the bytes
    // 0x0A '[' or 0x0A '{' and was refused as "looks like a JSON file".
    void firstPlaneLengthThatLooksLikeJsonStillLoads() {
        QTemporaryDir dir;
        for (int length : {91, 123}) {
            pb::XSpace space;
            pb::XPlane* plane = space.add_planes();
            plane->set_name("/host:CPU");
            pb::XLine* line = plane->add_lines();
            line->set_name("main");
            // Pad the line's name until the plane has exactly `length` bytes.
            while (int(plane->ByteSizeLong()) < length) line->mutable_name()->push_back('x');
            QCOMPARE(int(plane->ByteSizeLong()), length);
            const std::string bytes = space.SerializeAsString();
            QCOMPARE(uint8_t(bytes[0]), uint8_t(0x0A));
            QCOMPARE(bytes[1], length == 91 ? '[' : '{');
            const std::string path =
                dir.path().toStdString() + "/plane" + std::to_string(length) + ".xplane.pb";
            writeFile(path, bytesOf(bytes));
            const LoadResult r = loadPath(path);
            QVERIFY2(r.ok(), r.error.c_str());
            QCOMPARE(r.profile->tracks().size(), size_t(1));
        }
    }

    // Before: a file that shrank while mapped (a profiler rewriting it) killed the app with
    // SIGBUS. Now the pages past the new end read as zeros and the load names the change.
    void fileShrinkingWhileReadIsReported() {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/host.xplane.pb";
        SyntheticOptions o;
        o.events = 300000;
        writeFile(path, generateSyntheticXSpace(o, "host"));
        const auto fullSize = std::filesystem::file_size(path);
        QVERIFY(fullSize > 1'000'000);
        bool truncated = false;
        // Cut once a chunk is decoded, with others under way (not at the stage's start).
        Progress progress([&](std::string_view stage, double fraction) {
            if (truncated || stage != "Reading events" || fraction == 0) return;
            truncated = true;
            std::filesystem::resize_file(path, 4096); // the profiler starts rewriting it
        });
        const LoadResult r = loadPath(path, &progress);
        QVERIFY(truncated);
        QVERIFY(!r.ok());
        QVERIFY2(r.error.find(path) != std::string::npos, r.error.c_str());
        QVERIFY2(r.error.find("changed while it was being read") != std::string::npos,
                 r.error.c_str());

        // The mapping itself: bytes past the new end read as zeros, and it says so.
        writeFile(path, generateSyntheticXSpace(o, "host"));
        MappedFile file(path);
        QVERIFY(file.error().empty());
        QVERIFY(!file.shrunk());
        std::filesystem::resize_file(path, 100);
        const auto bytes = file.bytes();
        QCOMPARE(bytes.size(), size_t(fullSize));
        uint64_t sum = 0;
        for (size_t i = 8192; i < bytes.size(); i += 4096) sum += bytes[i];
        QCOMPARE(sum, uint64_t(0));
        QVERIFY(file.shrunk());
    }

    void everyTruncationIsHandled() {
        // Every prefix of the fixture either fails with a message or, cut exactly between
        // top-level fields, loads a shorter XSpace (fewer planes, or fewer of the messages that
        // follow the planes). None crashes.
        const std::string full = fixtureXSpace();
        int failures = 0;
        for (size_t n = 0; n < full.size(); ++n) {
            const LoadResult r = loadFixtureBytes(full.substr(0, n));
            if (r.ok()) {
                const Host& h = r.profile->hosts()[0];
                QVERIFY(r.profile->planes().size() < 3 || h.errors.empty() ||
                        h.warnings.size() < 2 || h.hostnames.empty());
            } else {
                QVERIFY(!r.error.empty());
                ++failures;
            }
        }
        QVERIFY(failures > int(full.size()) * 9 / 10);
        QVERIFY(loadFixtureBytes(full.substr(0, full.size() / 2)).error.find("byte") !=
                std::string::npos);
    }

    void corruptBytesNeverCrash() {
        const std::string full = fixtureXSpace();
        std::mt19937 rng(1234);
        int loaded = 0, failed = 0;
        for (int i = 0; i < 3000; ++i) {
            std::string bad = full;
            const int flips = 1 + int(rng() % 4);
            for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = char(rng());
            const LoadResult r = loadFixtureBytes(bad);
            (r.ok() ? loaded : failed)++;
            if (r.ok()) { // whatever loaded must satisfy the model's invariants
                const Profile& p = *r.profile;
                for (size_t t = 0; t < p.tracks().size(); ++t)
                    for (uint32_t d = 0; d < p.tracks()[t].depthCount; ++d) {
                        const EventRange er = p.eventsAt(uint32_t(t), d);
                        for (EventIndex e = er.begin; e < er.end; ++e) {
                            QVERIFY(p.end(e) >= p.start(e));
                            QVERIFY(p.start(e) >= 0 && p.end(e) <= p.durationPs());
                            if (e > er.begin) QVERIFY(p.start(e) >= p.end(e - 1));
                        }
                    }
            }
        }
        QVERIFY(failed > 0);
        qInfo("corrupt variants: %d loaded, %d rejected with a message", loaded, failed);
    }

    void badFilesNameTheFileAndTheProblem() {
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        auto check = [&](const std::string& name, std::span<const uint8_t> bytes,
                         const char* expected) {
            const std::string path = base + "/" + name;
            writeFile(path, bytes);
            const LoadResult r = loadPath(path);
            QVERIFY2(!r.ok(), name.c_str());
            QVERIFY2(r.error.find(path) != std::string::npos, r.error.c_str());
            QVERIFY2(r.error.find(expected) != std::string::npos, r.error.c_str());
        };
        check("empty.xplane.pb", {}, "empty");
        check("trace.json", bytesOf("{\"traceEvents\": []}"), "JSON");
        const uint8_t gz[] = {0x1f, 0x8b, 8, 0, 0, 0};
        check("trace.json.gz", gz, "gzip");
        const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
        check("image.xplane.pb", png, "not an XSpace");
        check("text.xplane.pb", bytesOf("hello, this is not a profile"), "not an XSpace");
        const uint8_t zeros[64] = {};
        check("zeros.xplane.pb", zeros, "not an XSpace");
        const std::string full = fixtureXSpace();
        check("truncated.xplane.pb",
              std::span(reinterpret_cast<const uint8_t*>(full.data()), full.size() - 7),
              "truncated");

        // A folder where a host file should be.
        fs::create_directories(base + "/run/folder.xplane.pb");
        const LoadResult asFolder = loadHosts({{"folder", base + "/run/folder.xplane.pb"}});
        QVERIFY(!asFolder.ok());
        QVERIFY2(asFolder.error.find("folder") != std::string::npos, asFolder.error.c_str());
    }

    void discovery() {
        QTemporaryDir tmp;
        const std::string logdir = tmp.path().toStdString() + "/logs";
        const std::string bytes = fixtureXSpace();
        const std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(bytes.data()),
                                         bytes.size());
        for (const char* run : {"2024_01_01_10_00_00", "2024_03_05_09_30_00"}) {
            const std::string runDir = logdir + "/plugins/profile/" + run;
            fs::create_directories(runDir);
            writeFile(runDir + "/worker1.xplane.pb", b);
            writeFile(runDir + "/worker0.xplane.pb", b);
            writeFile(runDir + "/notes.txt", bytesOf("not a profile"));
        }
        fs::create_directories(logdir + "/plugins/profile/empty_run");

        for (const std::string& path :
             {logdir, logdir + "/plugins/profile", logdir + "/plugins/profile/"}) {
            const Discovery d = discoverProfiles(path);
            QVERIFY2(d.ok(), d.error.c_str());
            QCOMPARE(d.runs.size(), size_t(2));
            QCOMPARE(d.runs[0].name, std::string("2024_03_05_09_30_00")); // newest first
            QCOMPARE(d.runs[0].hosts.size(), size_t(2));
            QCOMPARE(d.runs[0].hosts[0].host, std::string("worker0"));
            QCOMPARE(d.runs[0].hosts[1].host, std::string("worker1"));
        }
        const Discovery run = discoverProfiles(logdir + "/plugins/profile/2024_01_01_10_00_00");
        QVERIFY(run.ok());
        QCOMPARE(run.runs.size(), size_t(1));
        QCOMPARE(run.runs[0].hosts.size(), size_t(2));
        const Discovery single =
            discoverProfiles(logdir + "/plugins/profile/2024_01_01_10_00_00/worker1.xplane.pb");
        QVERIFY(single.ok());
        QCOMPARE(single.runs[0].hosts.size(), size_t(1));
        QCOMPARE(single.runs[0].hosts[0].host, std::string("worker1"));

        const Discovery missing = discoverProfiles(logdir + "/nope");
        QVERIFY(!missing.ok());
        QVERIFY(missing.error.find("no such file or folder") != std::string::npos);
        QVERIFY(missing.error.find(logdir + "/nope") != std::string::npos);
        const Discovery none = discoverProfiles(logdir + "/plugins/profile/empty_run");
        QVERIFY(!none.ok());
        QVERIFY(none.error.find("no profiles found") != std::string::npos);

        // Both hosts side by side in one profile, sharing one time base.
        const LoadResult both = loadHosts(run.runs[0].hosts);
        QVERIFY2(both.ok(), both.error.c_str());
        QCOMPARE(both.profile->hosts().size(), size_t(2));
        QCOMPARE(both.profile->planes().size(), size_t(6));
        QCOMPARE(both.profile->eventCount(), size_t(12));
        QCOMPARE(both.profile->planes()[3].host, 1u);
        QCOMPARE(both.profile->flows().size(), size_t(2)); // one per host, never across hosts
    }

    void failedLoadLeavesOtherProfilesIntact() {
        const LoadResult first = loadFixtureBytes(fixtureXSpace());
        QVERIFY(first.ok());
        const size_t events = first.profile->eventCount();
        const LoadResult bad = loadFixtureBytes("garbage that is not a profile");
        QVERIFY(!bad.ok());
        QCOMPARE(first.profile->eventCount(), events);
        QCOMPARE(first.profile->name(0), std::string_view("model/dense/MatMul:MatMul"));
    }

    void cancelStopsLoading() {
        REQUIRE_REALDATA();
        Progress progress;
        progress.cancel();
        const LoadResult r = loadPath(kBert, &progress);
        QVERIFY(!r.ok());
        QVERIFY(r.cancelled);
    }

    void realTfGpuBert() {
        REQUIRE_REALDATA();
        const LoadResult r = loadPath(kBert);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QCOMPARE(p.planes().size(), size_t(9));
        QCOMPARE(p.str(p.planes()[0].name), std::string_view("/host:CPU"));
        QCOMPARE(p.planes()[0].trackCount, 22u);
        uint64_t hostEvents = 0;
        for (const Track& t : p.tracksOf(p.planes()[0])) hostEvents += t.eventCount;
        QCOMPARE(hostEvents, uint64_t(15354));
        const uint32_t expectedTracks[] = {22, 0, 1, 0, 0, 7, 0, 7, 0};
        const uint64_t expectedEvents[] = {15354, 0, 19, 0, 0, 3875, 0, 3880, 0};
        for (size_t i = 0; i < 9; ++i) {
            const Plane& pl = p.planes()[i];
            QCOMPARE(pl.trackCount, expectedTracks[i]);
            uint64_t n = 0;
            for (const Track& t : p.tracksOf(pl)) n += t.eventCount;
            QCOMPARE(n, expectedEvents[i]);
            if (i > 0) {
                QCOMPARE(pl.kind, PlaneKind::Gpu);
                QCOMPARE(pl.deviceOrdinal, int(i - 1));
                QCOMPARE(pl.device.computeCapMajor, 7);
                QCOMPARE(pl.device.coreCount, int64_t(80));
                QCOMPARE(pl.device.memoryBytes, uint64_t(16945512448ull));
            }
        }
        const Track* compute = findTrack(p, "Stream #134(Compute)");
        QVERIFY(compute);
        QCOMPARE(compute->eventCount, 665u);
        // The first kernel on the compute stream is TF's Philox random fill.
        const EventIndex first = compute->firstEvent;
        QVERIFY(
            p.name(first).starts_with("void tensorflow::functor::FillPhiloxRandomKernelLaunch"));
        const KernelDetails* k = p.kernelDetails(first);
        QVERIFY(k && k->valid);
        QCOMPARE(k->registersPerThread, 38u);
        QCOMPARE(k->sharedBytes(), 0u);
        QCOMPARE(k->grid[0], 160u);
        QCOMPARE(k->block[0], 1024u);
        QCOMPARE(p.kernels().size(), size_t(1330)); // 665 on each of GPU:4 and GPU:6
        QCOMPARE(p.memoryEvents().size(), size_t(1859 + 634));
        const Track* ops = findTrack(p, "TensorFlow Ops");
        QVERIFY(ops);
        QCOMPARE(ops->kind, TrackKind::FrameworkOps);
        QVERIFY(findTrack(p, "Steps"));
        // Every device event with a correlation id on a stream was launched from the host.
        QCOMPARE(p.flows().size(), size_t(19 + 759 + 778));
        for (const Flow& f : p.flows()) {
            QCOMPARE(p.planes()[p.tracks()[p.trackOf(f.launch)].plane].kind, PlaneKind::Host);
            QCOMPARE(p.tracks()[p.trackOf(f.target)].kind, TrackKind::GpuStream);
            QCOMPARE(*p.correlationIds().find(f.launch), *p.correlationIds().find(f.target));
        }
    }

    void realTfGpuBertLogDir() {
        REQUIRE_REALDATA();
        const Discovery d = discoverProfiles(kRealData + "/tf-gpu-bert");
        QVERIFY2(d.ok(), d.error.c_str());
        QCOMPARE(d.runs.size(), size_t(1));
        QCOMPARE(d.runs[0].name, std::string("2020_12_03_bert"));
        QCOMPARE(d.runs[0].hosts.size(), size_t(2));
        QCOMPARE(d.runs[0].hosts[0].host, std::string("34.83.195.179_6003"));
        const LoadResult r = loadHosts(d.runs[0].hosts);
        QVERIFY(r.ok());
        QCOMPARE(r.profile->hosts().size(), size_t(2));
        QCOMPARE(r.profile->eventCount(), size_t(2 * 23128));
        // The two files are one blob committed twice: both name the same tracer host inside.
        QCOMPARE(r.profile->hosts()[1].hostnames, std::vector<std::string>{"34.83.195.179:6003"});
    }

    void realJaxRocm() {
        REQUIRE_REALDATA();
        const LoadResult gemm = loadPath(kRealData + "/jax-rocm/jax08_gemm.tw003.xplane.pb");
        QVERIFY2(gemm.ok(), gemm.error.c_str());
        const Profile& p = *gemm.profile;
        QCOMPARE(p.planes().size(), size_t(11));
        QCOMPARE(p.str(p.planes()[0].name), std::string_view("/host:metadata"));
        QCOMPARE(p.planes()[0].kind, PlaneKind::Other);
        QCOMPARE(p.str(p.planes()[10].name), std::string_view("Task Environment"));
        const Plane& gpu0 = p.planes()[1];
        QCOMPARE(gpu0.device.vendor, std::string("AMD"));
        QCOMPARE(gpu0.device.coreCount, int64_t(304));
        QCOMPARE(gpu0.device.computeCapMinor, 4);
        QCOMPARE(gpu0.trackCount, 2u);
        const Track* s16 = findTrack(p, "Stream #16(Kernel)");
        QVERIFY(s16);
        QCOMPARE(s16->streamFlags, uint16_t(StreamKernel));
        QCOMPARE(s16->eventCount + findTrack(p, "Stream #17(Kernel)")->eventCount, 54u);
        QCOMPARE(p.kernels().size(), size_t(54));
        QCOMPARE(p.flows().size(), size_t(54));
        // A ROCm GEMM kernel with 12800 bytes of group (shared) memory.
        bool found = false;
        for (size_t i = 0; i < p.kernels().size(); ++i) {
            const KernelDetails& k = p.kernelDetailsTable()[p.kernels().valueAt(i)];
            if (k.sharedBytes() == 12800) {
                found = true;
                QCOMPARE(k.grid[0], 8u);
                QCOMPARE(k.grid[1], 32u);
                QCOMPARE(k.block[0], 256u);
            }
        }
        QVERIFY(found);
        QCOMPARE(p.memoryEvents().size(), size_t(162));

        const LoadResult conv =
            loadPath(kRealData + "/jax-rocm/jax_conv_minimal_08.tw003.xplane.pb");
        QVERIFY2(conv.ok(), conv.error.c_str());
        int gpusWithEvents = 0;
        for (const Plane& pl : conv.profile->planes())
            if (pl.kind == PlaneKind::Gpu && pl.trackCount > 0) ++gpusWithEvents;
        QCOMPARE(gpusWithEvents, 8);

        const LoadResult te =
            loadPath(kRealData + "/jax-rocm/te_fused_attn.934987a2fc2f.xplane.pb");
        QVERIFY2(te.ok(), te.error.c_str());
        const Track* bare = findTrack(*te.profile, "Stream #2");
        QVERIFY(bare);
        QCOMPARE(bare->kind, TrackKind::GpuStream);
        QCOMPARE(bare->streamFlags, uint16_t(0));
        bool custom = false;
        for (const Plane& pl : te.profile->planes()) custom |= pl.kind == PlaneKind::Custom;
        QVERIFY(custom);
    }

    void realFilesTruncatedAndCorrupted() {
        REQUIRE_REALDATA();
        for (const char* rel :
             {"/jax-rocm/jax08_gemm.tw003.xplane.pb",
              "/tf-gpu-bert/plugins/profile/2020_12_03_bert/34.83.195.179_6003.xplane.pb"}) {
            const std::vector<uint8_t> full = readFile(kRealData + rel);
            QVERIFY(!full.empty());
            std::mt19937 rng(7);
            for (int i = 0; i < 40; ++i) {
                const size_t cut = 1 + rng() % (full.size() - 1);
                const LoadResult r = loadXSpaceBytes(std::span(full.data(), cut), "cut");
                if (!r.ok()) QVERIFY(!r.error.empty());
            }
            for (int i = 0; i < 40; ++i) {
                std::vector<uint8_t> bad = full;
                for (int f = 0; f < 8; ++f) bad[rng() % bad.size()] = uint8_t(rng());
                const LoadResult r = loadXSpaceBytes(bad, "corrupt");
                if (!r.ok()) QVERIFY(!r.error.empty());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestXSpaceImporter)
#include "test_xspace_importer.moc"
