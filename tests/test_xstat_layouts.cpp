// XStats laid out as protobuf writes them and in the other layouts its parser reads: fields in any
// order, repeated (the last wins), unknown, varints longer than they need be, values that end at
// the file's last byte. The importer reads the layout protobuf writes without its general field
// loop (readPlainStat); each stat here must read as protobuf's own parser reads it, whichever way
// it was read, on events and on planes, and the plain reading must take what it is meant to take.
#include <QtTest>

#include <bit>
#include <cstring>

#include "model/ProfileLoader.h"
#include "model/xspace/XStatReader.h"
#include "xplane.pb.h"

using namespace stepscope;
namespace pb = tensorflow::profiler;

namespace {

std::string varint(uint64_t v) {
    std::string s;
    for (; v >= 0x80; v >>= 7) s += char(v | 0x80);
    return s + char(v);
}
std::string tag(uint32_t field, uint32_t wireType) {
    return varint(field << 3 | wireType);
}
std::string intField(uint32_t field, uint64_t v) {
    return tag(field, 0) + varint(v);
}
std::string lenField(uint32_t field, std::string_view bytes) {
    return tag(field, 2) + varint(bytes.size()) + std::string(bytes);
}
std::string doubleField(uint32_t field, double d) {
    std::string s = tag(field, 1);
    s.resize(s.size() + 8);
    const uint64_t bits = std::bit_cast<uint64_t>(d);
    std::memcpy(s.data() + s.size() - 8, &bits, 8);
    return s;
}

// XStat bodies: metadata_id = 1, double = 2, uint64 = 3, int64 = 4, str = 5, bytes = 6, ref = 7.
std::vector<std::string> layouts() {
    const std::string overlongOne("\x81\x00", 2), overlongFive("\x85\x80\x00", 3);
    return {
        // As protobuf writes them: every type; values, ids and lengths of one to eight bytes.
        intField(1, 1) + intField(4, 5),
        intField(1, 2) + intField(3, uint64_t(1) << 45),
        intField(1, 2) + intField(3, uint64_t(1) << 55),
        intField(1, 2) + doubleField(2, 2.5),
        intField(1, 3) + lenField(5, "hello"),
        intField(1, 3) + lenField(5, std::string(200, 'x')),
        intField(1, 3) + lenField(6, std::string("\0\1", 2)),
        intField(1, 1) + intField(7, 5),
        intField(1, 300) + intField(4, 1),
        intField(1, uint64_t(1) << 55) + intField(4, 1),
        // Also as protobuf writes them, with a varint of nine or ten bytes: a value, an id.
        intField(1, 2) + intField(3, uint64_t(1) << 60),
        intField(1, 1) + intField(4, uint64_t(int64_t(-7))),
        intField(1, uint64_t(int64_t(-1))) + intField(4, 1),
        // Fields in another order, repeated (the last wins), unknown, or after the value.
        intField(4, 9) + intField(1, 2),
        intField(1, 3) + intField(1, 1) + intField(4, 4),
        intField(1, 1) + intField(4, 5) + intField(1, 2),
        intField(1, 1) + intField(4, 5) + intField(3, 6),
        intField(1, 1) + lenField(5, "ab") + intField(4, 7),
        intField(1, 2) + doubleField(2, 0.5) + intField(4, 1),
        intField(1, 1) + intField(4, 5) + intField(9, 3),
        lenField(12, "xyz") + intField(1, 1) + intField(4, 5),
        // Varints longer than they need be: an id, a value, a length.
        tag(1, 0) + overlongOne + intField(4, 5),
        intField(1, 1) + tag(4, 0) + overlongFive,
        intField(1, 2) + tag(5, 2) +
            std::string("\x83\x00"
                        "abc",
                        5),
        // No value; nothing at all (id 0, which has no metadata).
        intField(1, 1),
        "",
    };
}

// The layouts readPlainStat takes: the first ten above, and the three with overlong varints.
bool plainLayout(size_t i) {
    return i < 10 || (i >= 21 && i < 24);
}

// What protobuf reads, in Stepscope's terms: the key's name, the type, and the value as text (a
// number in decimal, a double's bits, the text of a string or, once loaded, of the stat a ref
// names). A stat with no value is read as the int64 0, the value protobuf's getters give; one with
// no metadata is named as the importer names it for the user.
struct Read {
    std::string key;
    StatType type;
    std::string value;
    bool operator==(const Read&) const = default;
};

// A stat's value as protobuf reads it: its type, and the value as text, a ref as the number it
// holds. No value reads as the int64 0.
std::pair<StatType, std::string> protobufValue(const pb::XStat& s) {
    switch (s.value_case()) {
    case pb::XStat::kDoubleValue:
        return {StatType::Double, std::to_string(std::bit_cast<uint64_t>(s.double_value()))};
    case pb::XStat::kUint64Value:
        return {StatType::Uint64, std::to_string(s.uint64_value())};
    case pb::XStat::kInt64Value:
        return {StatType::Int64, std::to_string(s.int64_value())};
    case pb::XStat::kStrValue:
        return {StatType::Str, s.str_value()};
    case pb::XStat::kBytesValue:
        return {StatType::Bytes, s.bytes_value()};
    case pb::XStat::kRefValue:
        return {StatType::Ref, std::to_string(s.ref_value())};
    case pb::XStat::VALUE_NOT_SET:
        break;
    }
    return {StatType::Int64, "0"};
}

std::vector<Read> expected(const pb::XPlane& plane,
                           const google::protobuf::RepeatedPtrField<pb::XStat>& stats) {
    std::vector<Read> out;
    for (const pb::XStat& s : stats) {
        const auto meta = plane.stat_metadata().find(s.metadata_id());
        auto [type, value] = protobufValue(s);
        if (type == StatType::Ref) value = plane.stat_metadata().at(int64_t(s.ref_value())).name();
        out.push_back({meta != plane.stat_metadata().end()
                           ? meta->second.name()
                           : "(unknown stat " + std::to_string(s.metadata_id()) + ")",
                       type, value});
    }
    return out;
}

template <class Stats> std::vector<Read> loaded(const Profile& p, const Stats& stats) {
    std::vector<Read> out;
    for (const StatValue& s : stats) {
        Read r{std::string(p.str(s.key)), s.type, {}};
        if (s.isText())
            r.value = p.str(s.asString());
        else
            r.value =
                s.type == StatType::Int64 ? std::to_string(s.asInt()) : std::to_string(s.rawBits());
        out.push_back(r);
    }
    return out;
}

} // namespace

class TestXStatLayouts : public QObject {
    Q_OBJECT
private slots:
    // readPlainStat takes the layouts meant for it, reading them as protobuf does, and leaves every
    // other one to the general reading untouched: `out` as it was, no text numbered. Each stat is
    // read with 8 bytes of the buffer after it, and with none, where it must still take the
    // layout of one-byte varints and never take one not meant for it.
    void plainReadingTakesProtobufsLayoutOnly() {
        const std::vector<std::string> all = layouts();
        for (size_t i = 0; i < all.size(); ++i) {
            for (const size_t after : {size_t(8), size_t(0)}) {
                const std::string buffer = all[i] + std::string(after, '\xff');
                const auto* b = reinterpret_cast<const uint8_t*>(buffer.data());
                const RawStat before{-42, StatType::Bytes, 42};
                RawStat out = before;
                std::vector<std::string> texts;
                const bool taken = readPlainStat(b, b + all[i].size(), b + buffer.size(), out,
                                                 [&texts](std::string_view text) {
                                                     texts.emplace_back(text);
                                                     return uint32_t(texts.size() - 1);
                                                 });
                const std::string which =
                    "layout " + std::to_string(i) + ", " + std::to_string(after) + " bytes after";
                QVERIFY2(after == 0 ? !taken || plainLayout(i) : taken == plainLayout(i),
                         which.c_str());
                if (i == 0) QVERIFY2(taken, which.c_str());
                if (!taken) {
                    QVERIFY2(out.metadataId == before.metadataId && out.type == before.type &&
                                 out.raw == before.raw && texts.empty(),
                             which.c_str());
                    continue;
                }
                pb::XStat s;
                QVERIFY(s.ParseFromString(all[i]));
                QVERIFY2(s.value_case() != pb::XStat::VALUE_NOT_SET, which.c_str());
                QCOMPARE(out.metadataId, s.metadata_id());
                const bool text = out.type == StatType::Str || out.type == StatType::Bytes;
                // A text is numbered once, as the first (0); other values are out.raw itself.
                QCOMPARE(texts.size(), size_t(text ? 1 : 0));
                if (text) QCOMPARE(out.raw, uint64_t(0));
                const std::string value = text ? texts[0]
                                          : out.type == StatType::Int64
                                              ? std::to_string(int64_t(out.raw))
                                              : std::to_string(out.raw);
                QCOMPARE(std::pair(out.type, value), protobufValue(s));
            }
        }
    }

    // A stat that cannot be read fails naming the field and the offset from the file's start (two
    // bytes before the stat here), whichever reading declined it first.
    void badStatsNameTheFieldAndTheOffset() {
        const std::pair<std::string, std::string> bad[] = {
            {tag(1, 0), "at byte 3: truncated varint in XStat.metadata_id"},
            {intField(1, 1) + tag(4, 1) + std::string(8, '\0'),
             "at byte 5: XStat value has wire type 1, expected 0"},
            {intField(1, 1) + tag(5, 2) + varint(5) + "ab",
             "at byte 6: length 5 of XStat string value runs past the end of its message "
             "(truncated or corrupt)"},
        };
        for (const auto& [stat, message] : bad) {
            const std::string file = std::string(2, '\0') + stat;
            const auto* b = reinterpret_cast<const uint8_t*>(file.data());
            std::string error;
            RawStat out;
            QVERIFY(!readStat(b + 2, b + file.size(), std::span(b, file.size()), &error, out,
                              [](std::string_view) { return uint32_t(0); }));
            QCOMPARE(error, message);
        }
    }

    // One event per layout and one with all of them, on a line whose last stat ends at the file's
    // last byte; the plane carries every layout too.
    void everyLayoutReadsAsProtobufReadsIt() {
        pb::XPlane head;
        head.set_id(1);
        head.set_name("/host:CPU");
        for (const auto& [id, name] : std::vector<std::pair<int64_t, std::string>>{
                 {1, "alpha"}, {2, "beta"}, {3, "gamma"}, {5, "target"}, {300, "far"}}) {
            (*head.mutable_stat_metadata())[id].set_id(id);
            (*head.mutable_stat_metadata())[id].set_name(name);
        }
        (*head.mutable_event_metadata())[1].set_id(1);
        (*head.mutable_event_metadata())[1].set_name("op");
        pb::XLine lineHead;
        lineHead.set_id(1);
        lineHead.set_name("thread");
        lineHead.set_timestamp_ns(1000);

        const std::vector<std::string> all = layouts();
        std::vector<std::string> lists; // each event's stats field(s)
        std::string every;
        for (const std::string& s : all) {
            lists.push_back(lenField(4, s));
            every += lenField(4, s);
        }
        lists.push_back(every);
        lists.push_back(lenField(4, intField(1, 1) + intField(4, 5))); // ends the file
        std::string line = lineHead.SerializeAsString();
        for (size_t i = 0; i < lists.size(); ++i) {
            pb::XEvent e;
            e.set_metadata_id(1);
            e.set_offset_ps(int64_t(i) * 1000);
            e.set_duration_ps(500);
            line += lenField(4, e.SerializeAsString() + lists[i]);
        }
        std::string plane = head.SerializeAsString();
        for (const std::string& s : all) plane += lenField(6, s);
        plane += lenField(3, line);
        const std::string bytes = lenField(1, plane);
        QCOMPARE(bytes.substr(bytes.size() - 2), intField(4, 5)); // the file's last bytes

        pb::XSpace space;
        QVERIFY(space.ParseFromString(bytes));
        const pb::XPlane& parsed = space.planes(0);
        QCOMPARE(size_t(parsed.lines(0).events_size()), lists.size());

        const LoadResult r = loadXSpaceBytes(
            std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "layouts");
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QCOMPARE(loaded(p, p.planeStats(p.planes()[0])), expected(parsed, parsed.stats()));
        const Track& t = p.tracks()[0];
        QCOMPARE(size_t(t.eventCount), lists.size());
        for (size_t i = 0; i < lists.size(); ++i) {
            const EventIndex e = t.firstEvent + EventIndex(i);
            QCOMPARE(p.start(e), int64_t(i) * 1000);
            const std::vector<Read> want = expected(parsed, parsed.lines(0).events(int(i)).stats());
            QVERIFY2(loaded(p, p.eventStats(e)) == want, ("event " + std::to_string(i)).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestXStatLayouts)
#include "test_xstat_layouts.moc"
