// XSpaceWriter against protobuf's generated classes: what we write parses to exactly what was
// meant, and equals protobuf's own (deterministic) serialization byte for byte.

#include <QtTest>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/message_differencer.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "model/xspace/XSpaceWriter.h"
#include "tests/fixtures/FixtureXSpace.h"
#include "xplane.pb.h"

using namespace stepscope;
namespace pb = tensorflow::profiler;

namespace {

std::string deterministicBytes(const pb::XSpace& space) {
    std::string out;
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    space.SerializeToCodedStream(&coded);
    coded.Trim();
    return out;
}

pb::XSpace parse(const std::vector<uint8_t>& bytes) {
    pb::XSpace space;
    if (!space.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        qFatal("protobuf could not parse the writer's output");
    return space;
}

// The WireStat points into `s`, which outlives the writer call.
WireStat toWire(const pb::XStat& s) {
    switch (s.value_case()) {
    case pb::XStat::kDoubleValue:
        return WireStat::dbl(s.metadata_id(), s.double_value());
    case pb::XStat::kUint64Value:
        return WireStat::uint64(s.metadata_id(), s.uint64_value());
    case pb::XStat::kInt64Value:
        return WireStat::int64(s.metadata_id(), s.int64_value());
    case pb::XStat::kStrValue:
        return WireStat::str(s.metadata_id(), s.str_value());
    case pb::XStat::kBytesValue:
        return WireStat::bytes(s.metadata_id(), s.bytes_value());
    case pb::XStat::kRefValue:
        return WireStat::ref(s.metadata_id(), s.ref_value());
    case pb::XStat::VALUE_NOT_SET:
        break;
    }
    qFatal("stat without a value");
    return {};
}

std::vector<WireStat> toWire(const google::protobuf::RepeatedPtrField<pb::XStat>& stats) {
    std::vector<WireStat> out;
    for (const pb::XStat& s : stats) out.push_back(toWire(s));
    return out;
}

// Writes `space` through XSpaceWriter, field by field (maps in key order, as deterministic
// protobuf serialization sorts them).
std::vector<uint8_t> writeWithWriter(const pb::XSpace& space) {
    XSpaceWriter writer;
    for (const pb::XPlane& plane : space.planes()) {
        XPlaneWriter& p = writer.addPlane(plane.id(), plane.name());
        for (const pb::XLine& line : plane.lines()) {
            XLineWriter& l = p.addLine(line.id(), line.name(), line.timestamp_ns());
            for (const pb::XEvent& e : line.events()) {
                const std::vector<WireStat> stats = toWire(e.stats());
                if (e.data_case() == pb::XEvent::kNumOccurrences)
                    l.addAggregatedEvent(e.metadata_id(), e.num_occurrences(), e.duration_ps(),
                                         stats);
                else
                    l.addEvent(e.metadata_id(), e.offset_ps(), e.duration_ps(), stats);
            }
            l.setDurationPs(line.duration_ps());
            l.setDisplay(line.display_id(), line.display_name());
        }
        const std::map<int64_t, pb::XEventMetadata> events(plane.event_metadata().begin(),
                                                           plane.event_metadata().end());
        for (const auto& [key, m] : events) {
            Q_ASSERT(key == m.id());
            const std::vector<WireStat> stats = toWire(m.stats());
            const std::vector<int64_t> children(m.child_id().begin(), m.child_id().end());
            p.addEventMetadata(m.id(), m.name(), m.display_name(), stats, m.metadata(), children);
        }
        const std::map<int64_t, pb::XStatMetadata> statMetas(plane.stat_metadata().begin(),
                                                             plane.stat_metadata().end());
        for (const auto& [key, m] : statMetas) p.addStatMetadata(m.id(), m.name(), m.description());
        for (const pb::XStat& s : plane.stats()) p.addStat(toWire(s));
    }
    for (const std::string& s : space.errors()) writer.addError(s);
    for (const std::string& s : space.warnings()) writer.addWarning(s);
    for (const std::string& s : space.hostnames()) writer.addHostname(s);
    const size_t expectedSize = writer.encodedSize();
    std::vector<uint8_t> bytes = writer.finish();
    if (bytes.size() != expectedSize) qFatal("encodedSize() disagrees with finish()");
    return bytes;
}

void setRandomStat(pb::XStat* s, std::mt19937_64& rng) {
    s->set_metadata_id(static_cast<int64_t>(rng() % 3 == 0 ? 0 : rng() % 100000));
    const auto bigSigned = static_cast<int64_t>(rng());
    switch (rng() % 6) {
    case 0:
        s->set_double_value(std::ldexp(static_cast<double>(bigSigned), -40));
        break;
    case 1:
        s->set_uint64_value(rng() >> (rng() % 64));
        break;
    case 2:
        s->set_int64_value(bigSigned >> (rng() % 64));
        break;
    case 3:
        s->set_str_value(std::string(rng() % 300, static_cast<char>('a' + rng() % 26)));
        break;
    case 4: {
        std::string b(rng() % 40, '\0');
        for (char& c : b) c = static_cast<char>(rng());
        s->set_bytes_value(b);
        break;
    }
    default:
        s->set_ref_value(rng() % 1000);
        break;
    }
}

// A random XSpace touching every field, with zeros, negatives and empties mixed in.
pb::XSpace randomSpace(uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto maybeZero = [&](int64_t v) { return rng() % 4 == 0 ? 0 : v; };
    pb::XSpace space;
    const int planes = static_cast<int>(rng() % 4);
    for (int pi = 0; pi < planes; ++pi) {
        pb::XPlane* plane = space.add_planes();
        plane->set_id(maybeZero(static_cast<int64_t>(rng() % 50) - 10));
        plane->set_name(rng() % 5 ? "/device:GPU:" + std::to_string(pi) : "");
        const int lines = static_cast<int>(rng() % 5);
        for (int li = 0; li < lines; ++li) {
            pb::XLine* line = plane->add_lines();
            line->set_id(maybeZero(static_cast<int64_t>(rng()) >> (rng() % 64)));
            line->set_name(rng() % 4 ? "Stream #" + std::to_string(li) + "(Compute)" : "");
            line->set_timestamp_ns(
                maybeZero(1718000000000000000 + static_cast<int64_t>(rng() % 1000)));
            line->set_duration_ps(maybeZero(static_cast<int64_t>(rng() % 1000000)));
            line->set_display_id(maybeZero(-static_cast<int64_t>(rng() % 7)));
            if (rng() % 3 == 0) line->set_display_name("display " + std::to_string(li));
            const int events = static_cast<int>(rng() % 200);
            for (int ei = 0; ei < events; ++ei) {
                pb::XEvent* e = line->add_events();
                e->set_metadata_id(maybeZero(static_cast<int64_t>(rng() % 300)));
                if (rng() % 10 == 0)
                    e->set_num_occurrences(static_cast<int64_t>(rng() % 5));
                else
                    e->set_offset_ps(rng() % 8 == 0 ? -static_cast<int64_t>(rng() % 99)
                                                    : static_cast<int64_t>(rng() % (1ull << 45)));
                e->set_duration_ps(maybeZero(static_cast<int64_t>(rng() % 3000000)));
                const int stats = static_cast<int>(rng() % 5);
                for (int si = 0; si < stats; ++si) setRandomStat(e->add_stats(), rng);
            }
        }
        const int metas = static_cast<int>(rng() % 20);
        for (int mi = 0; mi < metas; ++mi) {
            const int64_t id = static_cast<int64_t>(rng() % 500) - (mi == 0 ? 600 : 0);
            pb::XEventMetadata& m = (*plane->mutable_event_metadata())[id];
            m.set_id(id);
            m.set_name(rng() % 5 ? "op_" + std::to_string(rng() % 999) : "");
            if (rng() % 3 == 0) m.set_display_name("display");
            if (rng() % 4 == 0) m.set_metadata(std::string("\0\x01\xff", 3));
            for (int k = static_cast<int>(rng() % 3); k > 0; --k) setRandomStat(m.add_stats(), rng);
            for (int k = static_cast<int>(rng() % 4); k > 0; --k)
                m.add_child_id(static_cast<int64_t>(rng() % 600) - 100);
        }
        const int statMetas = static_cast<int>(rng() % 20);
        for (int mi = 0; mi < statMetas; ++mi) {
            const int64_t id = static_cast<int64_t>(rng() % 500);
            pb::XStatMetadata& m = (*plane->mutable_stat_metadata())[id];
            m.set_id(id);
            m.set_name(rng() % 5 ? "stat_" + std::to_string(id) : "");
            if (rng() % 4 == 0) m.set_description("what it measures");
        }
        for (int k = static_cast<int>(rng() % 6); k > 0; --k)
            setRandomStat(plane->add_stats(), rng);
    }
    for (int k = static_cast<int>(rng() % 3); k > 0; --k) space.add_errors(k == 1 ? "" : "error");
    for (int k = static_cast<int>(rng() % 3); k > 0; --k)
        space.add_warnings("warning " + std::to_string(k));
    for (int k = static_cast<int>(rng() % 3); k > 0; --k)
        space.add_hostnames("host" + std::to_string(k));
    return space;
}

void expectSame(const pb::XSpace& expected, const std::vector<uint8_t>& written) {
    const pb::XSpace parsed = parse(written);
    google::protobuf::util::MessageDifferencer diff;
    std::string report;
    diff.ReportDifferencesToString(&report);
    QVERIFY2(diff.Compare(expected, parsed), report.c_str());
    const std::string reference = deterministicBytes(expected);
    QCOMPARE(written.size(), reference.size());
    QVERIFY(std::equal(written.begin(), written.end(),
                       reinterpret_cast<const uint8_t*>(reference.data())));
}

} // namespace

class TestXSpaceWriter : public QObject {
    Q_OBJECT

private slots:
    // Every field and every stat kind, checked one by one after protobuf parses our bytes.
    void everyFieldParsesBack() {
        XSpaceWriter writer;
        XPlaneWriter& gpu = writer.addPlane(3, "/device:GPU:2");
        gpu.addStatMetadata(1, "core_count");
        gpu.addStatMetadata(2, "kernel_details", "launch geometry");
        gpu.addStatMetadata(
            3, "regs:32 static_shared:0 dynamic_shared:4096 grid:1,2,3 block:4,5,6 occ_pct:50");
        gpu.addStat(WireStat::int64(1, 108));
        XLineWriter& stream = gpu.addLine(7, "Stream #7(Compute)", 1718000000123456789);
        const std::string payload("\x00\x01\xfe\xff", 4);
        const WireStat stats[] = {
            WireStat::dbl(4, 0.125),
            WireStat::uint64(5, std::numeric_limits<uint64_t>::max()),
            WireStat::int64(6, -1),
            WireStat::str(7, "size:112 dest:4 async:0"),
            WireStat::bytes(8, payload),
            WireStat::ref(2, 3),
            WireStat::int64(9, std::numeric_limits<int64_t>::min()),
            WireStat::str(10, ""),
            WireStat::int64(0, 0),
        };
        stream.addEvent(11, 0, 5000, stats);
        stream.addEvent(12, -7, 0);
        stream.addAggregatedEvent(13, 4, 9000, {stats, 1});
        stream.setDurationPs(123);
        stream.setDisplay(-2, "Stream 7");
        gpu.addLine(0, "", 0);
        const int64_t children[] = {5, -6, 1ll << 40};
        gpu.addEventMetadata(11, "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
                             "gemm", {stats + 5, 1}, payload, children);
        gpu.addEventMetadata(0, "");
        writer.addPlane(0, "");
        writer.addError("truncated buffer");
        writer.addWarning("");
        writer.addHostname("worker0");
        const std::vector<uint8_t> bytes = writer.finish();

        const pb::XSpace space = parse(bytes);
        QCOMPARE(space.planes_size(), 2);
        const pb::XPlane& p = space.planes(0);
        QCOMPARE(p.id(), 3);
        QCOMPARE(p.name(), "/device:GPU:2");
        QCOMPARE(p.stats_size(), 1);
        QCOMPARE(p.stats(0).metadata_id(), 1);
        QCOMPARE(p.stats(0).int64_value(), 108);
        QCOMPARE(p.stat_metadata_size(), 3);
        QCOMPARE(p.stat_metadata().at(2).name(), "kernel_details");
        QCOMPARE(p.stat_metadata().at(2).description(), "launch geometry");
        QCOMPARE(p.lines_size(), 2);
        const pb::XLine& l = p.lines(0);
        QCOMPARE(l.id(), 7);
        QCOMPARE(l.name(), "Stream #7(Compute)");
        QCOMPARE(l.timestamp_ns(), 1718000000123456789);
        QCOMPARE(l.duration_ps(), 123);
        QCOMPARE(l.display_id(), -2);
        QCOMPARE(l.display_name(), "Stream 7");
        QCOMPARE(l.events_size(), 3);
        const pb::XEvent& e = l.events(0);
        QCOMPARE(e.metadata_id(), 11);
        QCOMPARE(e.data_case(), pb::XEvent::kOffsetPs); // a zero offset is still set
        QCOMPARE(e.offset_ps(), 0);
        QCOMPARE(e.duration_ps(), 5000);
        QCOMPARE(e.stats_size(), 9);
        QCOMPARE(e.stats(0).double_value(), 0.125);
        QCOMPARE(e.stats(1).uint64_value(), std::numeric_limits<uint64_t>::max());
        QCOMPARE(e.stats(2).int64_value(), -1);
        QCOMPARE(e.stats(3).str_value(), "size:112 dest:4 async:0");
        QCOMPARE(e.stats(4).bytes_value(), payload);
        QCOMPARE(e.stats(5).metadata_id(), 2);
        QCOMPARE(e.stats(5).ref_value(), 3u);
        QCOMPARE(e.stats(6).int64_value(), std::numeric_limits<int64_t>::min());
        QCOMPARE(e.stats(7).value_case(), pb::XStat::kStrValue);
        QCOMPARE(e.stats(7).str_value(), "");
        QCOMPARE(e.stats(8).value_case(), pb::XStat::kInt64Value);
        QCOMPARE(e.stats(8).metadata_id(), 0);
        QCOMPARE(l.events(1).offset_ps(), -7);
        QCOMPARE(l.events(1).duration_ps(), 0);
        QCOMPARE(l.events(1).stats_size(), 0);
        QCOMPARE(l.events(2).data_case(), pb::XEvent::kNumOccurrences);
        QCOMPARE(l.events(2).num_occurrences(), 4);
        QCOMPARE(l.events(2).duration_ps(), 9000);
        QCOMPARE(l.events(2).stats(0).double_value(), 0.125);
        QCOMPARE(p.lines(1).events_size(), 0);
        QCOMPARE(p.event_metadata_size(), 2);
        const pb::XEventMetadata& m = p.event_metadata().at(11);
        QCOMPARE(m.id(), 11);
        QCOMPARE(m.name(), "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn");
        QCOMPARE(m.display_name(), "gemm");
        QCOMPARE(m.metadata(), payload);
        QCOMPARE(m.stats_size(), 1);
        QCOMPARE(m.stats(0).ref_value(), 3u);
        QCOMPARE(m.child_id_size(), 3);
        QCOMPARE(m.child_id(1), -6);
        QCOMPARE(m.child_id(2), 1ll << 40);
        QVERIFY(p.event_metadata().contains(0));
        QCOMPARE(space.planes(1).id(), 0);
        QCOMPARE(space.planes(1).name(), "");
        QCOMPARE(space.errors_size(), 1);
        QCOMPARE(space.errors(0), "truncated buffer");
        QCOMPARE(space.warnings_size(), 1);
        QCOMPARE(space.warnings(0), "");
        QCOMPARE(space.hostnames(0), "worker0");
    }

    void emptySpaceIsEmpty() {
        XSpaceWriter writer;
        QCOMPARE(writer.encodedSize(), size_t(0));
        QVERIFY(writer.finish().empty());
    }

    // Random messages built with protobuf's classes, written by us: both parse equal and the
    // bytes are protobuf's deterministic serialization.
    void randomSpacesMatchProtobuf_data() {
        QTest::addColumn<quint64>("seed");
        for (quint64 seed = 1; seed <= 40; ++seed)
            QTest::newRow(qPrintable(QString::number(seed))) << seed;
    }
    void randomSpacesMatchProtobuf() {
        QFETCH(quint64, seed);
        const pb::XSpace expected = randomSpace(seed);
        expectSame(expected, writeWithWriter(expected));
    }

    // Long strings (multi-byte lengths), a line of many events (multi-megabyte plane length),
    // extreme numbers.
    void largeValuesMatchProtobuf() {
        pb::XSpace space;
        pb::XPlane* plane = space.add_planes();
        plane->set_id(std::numeric_limits<int64_t>::max());
        plane->set_name(std::string(70000, 'n'));
        pb::XLine* line = plane->add_lines();
        line->set_id(std::numeric_limits<int64_t>::min());
        line->set_timestamp_ns(std::numeric_limits<int64_t>::max());
        for (int i = 0; i < 200000; ++i) {
            pb::XEvent* e = line->add_events();
            e->set_metadata_id(i % 1000 + 1);
            e->set_offset_ps(int64_t(i) * 1000003);
            e->set_duration_ps(i % 7 == 0 ? 0 : 999 + i);
            pb::XStat* s = e->add_stats();
            s->set_metadata_id(1);
            s->set_uint64_value(uint64_t(i) << 30);
        }
        pb::XStat* big = plane->add_stats();
        big->set_metadata_id(2);
        big->set_str_value(std::string(1 << 21, 'x'));
        pb::XStat* nan = plane->add_stats();
        nan->set_double_value(-0.0);
        expectSame(space, writeWithWriter(space));
    }

    void streamingEqualsOneBuffer() {
        XSpaceWriter writer;
        XPlaneWriter& p = writer.addPlane(1, "/host:CPU");
        XLineWriter& l = p.addLine(5, "python3", 10);
        l.addEvent(1, 2, 3);
        writer.addHostname("h");
        const std::vector<uint8_t> expected = [&] {
            XSpaceWriter again;
            XPlaneWriter& q = again.addPlane(1, "/host:CPU");
            q.addLine(5, "python3", 10).addEvent(1, 2, 3);
            again.addHostname("h");
            return again.finish();
        }();
        std::vector<uint8_t> streamed;
        int chunks = 0;
        QVERIFY(writer.finish([&](const uint8_t* data, size_t size) {
            streamed.insert(streamed.end(), data, data + size);
            ++chunks;
            return true;
        }));
        QCOMPARE(chunks, 2); // one plane, then the host names
        QCOMPARE(streamed, expected);
    }

    void sinkFailureStops() {
        XSpaceWriter writer;
        writer.addPlane(1, "a");
        writer.addPlane(2, "b");
        int calls = 0;
        QVERIFY(!writer.finish([&](const uint8_t*, size_t) {
            ++calls;
            return false;
        }));
        QCOMPARE(calls, 1);
    }

    // The test fixture numbers metadata as its header documents.
    void fixtureEncodesAsDocumented() {
        const pb::XSpace space = parse(fixtures::trainingHostFixture().encode());
        QCOMPARE(space.hostnames(0), "fixture-host");
        QCOMPARE(space.errors(0), "dropped 3 events");
        QCOMPARE(space.warnings(0), "clock skew");
        QCOMPARE(space.planes_size(), 2);
        const pb::XPlane& host = space.planes(0);
        // Events in order of first use: train, MatMul, MemoryAllocation, ...
        QCOMPARE(host.event_metadata().at(1).name(), "train");
        QCOMPARE(host.event_metadata().at(2).name(), "model/dense/MatMul:MatMul");
        QCOMPARE(host.event_metadata().at(3).name(), "MemoryAllocation");
        QCOMPARE(host.event_metadata_size(), 6);
        // Stats: step_num, group_id, allocator_name, then the ref's text GPU_0_bfc.
        QCOMPARE(host.stat_metadata().at(3).name(), "allocator_name");
        QCOMPARE(host.stat_metadata().at(4).name(), "GPU_0_bfc");
        const pb::XEvent& alloc = host.lines(1).events(1);
        QCOMPARE(alloc.metadata_id(), 3);
        QCOMPARE(alloc.stats(0).ref_value(), 4u);
        QCOMPARE(alloc.stats(8).double_value(), 0.25);
        QCOMPARE(host.lines(1).events(2).stats(0).uint64_value(), 7u);

        const pb::XPlane& gpu = space.planes(1);
        QCOMPARE(gpu.stats_size(), 7);
        QCOMPARE(gpu.stat_metadata().at(gpu.stats(1).metadata_id()).name(), "core_count");
        QCOMPARE(gpu.stats(1).int64_value(), 108);
        const pb::XEvent& gemm = gpu.lines(0).events(0);
        QCOMPARE(gpu.event_metadata().at(gemm.metadata_id()).name(), "gemm_kernel");
        QCOMPARE(gpu.stat_metadata().at(gemm.stats(1).metadata_id()).name(), "kernel_details");
        QCOMPARE(gpu.stat_metadata().at(int64_t(gemm.stats(1).ref_value())).name(),
                 fixtures::kKernelDetailsCuda);
        QCOMPARE(gpu.lines(0).events(1).stats(0).str_value(), fixtures::kKernelDetailsTf2020);
        const pb::XEventMetadata& rocm =
            gpu.event_metadata().at(gpu.lines(0).events(2).metadata_id());
        QCOMPARE(rocm.name(), "rocm_kernel");
        QCOMPARE(rocm.stats(0).str_value(), fixtures::kKernelDetailsRocm);
        QCOMPARE(gpu.lines(0).events(2).stats_size(), 0);
        QCOMPARE(gpu.lines(1).events(0).stats(1).str_value(), "size:112 dest:0 async:1");
        QCOMPARE(gpu.lines(2).id(), -559038737);
        QCOMPARE(gpu.lines(2).events(0).duration_ps(), 55000000);
    }
};

QTEST_GUILESS_MAIN(TestXSpaceWriter)
#include "test_xspace_writer.moc"
