// Reading a Chrome / Kineto trace's text: bad input of every kind named by file and byte, one bad
// event skipped and counted, truncation and gzip limits, and traceEvents read a window at a time
// giving exactly the profile the whole text gives (tests/fixtures/ChromeTraceTexts.h).
#include <QtTest>

#include <chrono>
#include <filesystem>
#include <set>

#include "model/ProfileLoader.h"
#include "model/kineto/Gunzip.h"
#include "model/kineto/KinetoImporter.h"
#include "tests/fixtures/AddressSpaceLimit.h"
#include "tests/fixtures/ChromeTraceTexts.h"
#include "tests/fixtures/CompareProfiles.h"
#include "tests/fixtures/GzipFile.h"
#include "tests/fixtures/KinetoTraces.h"

using namespace stepscope;
using namespace stepscope::fixtures;
namespace fs = std::filesystem;

namespace {

const std::string kKineto = std::string(STEPSCOPE_REALDATA) + "/kineto";

} // namespace

class TestKinetoReading : public QObject {
    Q_OBJECT

private slots:
    void badInputsNameTheFileAndThePlace() {
        QTemporaryDir dir;
        auto check = [&](const std::string& name, std::string_view text,
                         std::vector<std::string> expected) {
            const std::string path = dir.path().toStdString() + "/" + name;
            writeFile(path, text);
            const LoadResult r = loadPath(path);
            QVERIFY2(!r.ok(), name.c_str());
            QVERIFY2(r.error.find(path) != std::string::npos, r.error.c_str());
            for (const std::string& s : expected)
                QVERIFY2(r.error.find(s) != std::string::npos,
                         (name + ": " + r.error + " (expected '" + s + "')").c_str());
        };
        check("empty.json", "", {"empty"});
        check("truncated.json", kFixture2022.substr(0, kFixture2022.size() / 2), {"ends early"});
        const std::string gz = gzipOf(kFixture2022);
        check("truncated.json.gz", std::string_view(gz).substr(0, gz.size() * 6 / 10),
              {"gzip stream ends early at byte " + std::to_string(gz.size() * 6 / 10)});
        std::string corrupt = gz;
        for (size_t i = 20; i < 60; ++i) corrupt[i] = char(0xA5);
        check("corrupt.json.gz", corrupt, {"corrupt"});
        check("foreign.json", R"J({"name": "not a trace", "items": [1, 2]})J",
              {"no \"traceEvents\" array"});
        check("numbers.json", "[1, 2, 3]", {"traceEvents[0] is not an event object", "at byte 1"});
        check("ts-string.json", R"J([{"ph":"X","name":"a","pid":1,"tid":1,"ts":"soon","dur":1}])J",
              {"\"ts\" is not a number", "at byte 1"});
        check("events-not-array.json", R"J({"traceEvents": 5})J",
              {"\"traceEvents\" is not an array"});
        check("no-ph.json", R"J([{"name":"a","ts":1}, {"ph":"X"}])J", {"no \"ph\"", "at byte 1"});
        check("no-dur.json", R"J([{"ph":"X","name":"b","ts":1}])J", {"no \"dur\"", "at byte 1"});
        check("no-events.json", R"J({"traceEvents": []})J", {"no events"});
        check("pid-object.json", R"J([{"ph":"X","name":"a","pid":{},"tid":1,"ts":1,"dur":1}])J",
              {"pid or tid"});
        check("huge-ts.json", R"J([{"ph":"X","name":"a","ts":1e300,"dur":1}])J", {"\"ts\""});
    }

    // One bad event is left out and counted, not the whole trace: a negative "dur", a "name"
    // that is an object (its value left unread), a "ts" of 0 in a trace of epoch µs (CUPTI's
    // unknown time; 1.7e15 µs before the first event, out of the ps range). A number past
    // double's range stays as its text, "args": null is no args, and the array form's closing ]
    // is optional. Kept: good1 at 0, big at 20 µs, nullargs at 30 µs, good2 at 50 µs (ts - 1.7e15).
    void oneBadEventDoesNotRejectTheTrace() {
        const std::string text =
            R"J([{"ph":"X","name":"good1","pid":1,"tid":1,"ts":1700000000000100,"dur":10},
{"ph":"X","name":"neg","pid":1,"tid":1,"ts":1700000000000110,"dur":-1},
{"ph":"X","name":"big","pid":1,"tid":1,"ts":1700000000000120,"dur":5,"args":{"x":1e400}},
{"ph":"X","name":"nullargs","pid":1,"tid":1,"ts":1700000000000130,"dur":5,"args":null},
{"ph":"X","name":{"nested":[1,{"a":2}]},"pid":1,"tid":1,"ts":1700000000000140,"dur":5},
{"ph":"X","name":"zero","pid":1,"tid":1,"ts":0,"dur":5},
{"ph":"X","name":"good2","pid":1,"tid":1,"ts":1700000000000150,"dur":10},
)J";
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "crashed.json", text);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        const std::vector<EventIndex> e = eventsOf(p, p.tracks()[0]);
        QCOMPARE(e.size(), size_t(4));
        QCOMPARE(p.name(e[0]), std::string_view("good1"));
        QCOMPARE(p.name(e[1]), std::string_view("big"));
        QCOMPARE(p.start(e[1]) - p.start(e[0]), int64_t(20000000));
        QCOMPARE(statText(p, e[1], "x"), std::string("1e400"));
        QCOMPARE(p.name(e[2]), std::string_view("nullargs"));
        QCOMPARE(p.name(e[3]), std::string_view("good2"));
        QCOMPARE(p.start(e[3]) - p.start(e[0]), int64_t(50000000));
        QCOMPARE(p.duration(e[3]), int64_t(10000000));
        std::set<std::string> warnings(p.hosts()[0].warnings.begin(), p.hosts()[0].warnings.end());
        const auto at = [&](const char* name) {
            return std::to_string(text.find(std::string("{\"ph\":\"X\",\"name\":") + name));
        };
        const std::set<std::string> expected = {
            "the trace's closing ] is missing (the Trace Event Format allows this); the events "
            "up to byte " +
                std::to_string(text.rfind('}') + 1) + " are shown",
            "1 events skipped: \"dur\" is negative or not a duration in µs (first at byte " +
                at("\"neg\"") + ")",
            "1 events skipped: \"name\" is not a string (first at byte " + at("{") + ")",
            "1 events skipped: \"ts\" is not a time in µs this importer can hold (first at byte " +
                at("\"zero\"") + ")"};
        QCOMPARE(warnings, expected);
    }

    // Truncation and trailing bytes are said where they are: the end of the file, or where the
    // JSON's root value closes.
    void truncationAndTrailingContentNameTheirByte() {
        QTemporaryDir dir;
        // (Plain literals: moc misreads raw strings holding an odd number of quotes.)
        const std::string cut =
            "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
            "\"ts\":1,\"dur\":1},{\"ph\":\"X\",\"na";
        const std::string cutArray =
            R"J([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","name":1)J";
        const std::string cutAtBrace =
            R"J({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1})J";
        const std::string trailing =
            R"J({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]} garbage)J";
        const std::string unclosed = ", inside an unclosed array or object";
        const struct {
            std::string name, text, want;
        } cases[] = {
            {"cut.json", cut,
             "the JSON ends early at byte " + std::to_string(cut.size()) +
                 ", inside a string; is the file truncated?"},
            {"cut-array.json", cutArray,
             "the JSON ends early at byte " + std::to_string(cutArray.size()) + unclosed},
            {"cut-at-brace.json", cutAtBrace,
             "the JSON ends early at byte " + std::to_string(cutAtBrace.size()) + unclosed},
            {"trailing.json", trailing,
             "unexpected content after the JSON at byte " + std::to_string(trailing.size() - 8)},
        };
        for (const auto& c : cases) {
            const LoadResult r = loadText(dir, c.name, c.text);
            QVERIFY2(!r.ok(), c.name.c_str());
            QVERIFY2(r.error.find(c.want) != std::string::npos, r.error.c_str());
        }
    }

    // A truncated .json.gz has compressed data where the gzip size trailer should be, here
    // made to claim 4 GiB: the reader must fail quickly without trusting it. It runs in a child
    // whose address space is capped at 64 MiB above what the test already maps.
    void truncatedGzipFailsQuicklyInBoundedMemory() {
        std::string text;
        for (int i = 0; text.size() < 200000; ++i)
            text += "{\"ph\":\"X\",\"name\":\"k" + std::to_string(i) +
                    "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(i) + ",\"dur\":1},";
        const std::string gz = gzipOf("[" + text + "{}]");
        std::string cut = gz.substr(0, gz.size() / 2);
        for (size_t i = cut.size() - 4; i < cut.size(); ++i) cut[i] = char(0xF0);
        const auto start = std::chrono::steady_clock::now();
        const int code = testing::exitCodeWithAddressSpaceLimit(size_t(64) << 20, [&] {
            GunzipBuffer out;
            size_t size = 0;
            const std::string error =
                gunzip({reinterpret_cast<const uint8_t*>(cut.data()), cut.size()}, out, size, 64);
            return error.find("ends early at byte " + std::to_string(cut.size())) !=
                           std::string::npos
                       ? 0
                       : 1;
        });
        QCOMPARE(code, 0); // 2: it tried to allocate what the trailer claimed
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
    }

    // Output past the limit is refused as soon as it is produced (a gzip bomb); the buffer
    // grows from a small first guess to the real size, and the padding after it is zero.
    void gunzipGrowsAndStopsAtItsLimit() {
        const std::string zeros(20000000, 'x');
        const std::string gz = gzipOf(zeros) + gzipOf("tail");
        const std::span<const uint8_t> in(reinterpret_cast<const uint8_t*>(gz.data()), gz.size());
        GunzipBuffer out;
        size_t size = 0;
        QCOMPARE(gunzip(in, out, size, 64), std::string());
        QCOMPARE(size, size_t(20000004));
        QCOMPARE(out.size(), size_t(20000004 + 64));
        QCOMPARE(std::count(out.begin(), out.begin() + 20000000, uint8_t('x')),
                 ptrdiff_t(20000000));
        QCOMPARE(std::string(out.begin() + 20000000, out.begin() + 20000004), std::string("tail"));
        QCOMPARE(std::count(out.begin() + 20000004, out.end(), uint8_t(0)), ptrdiff_t(64));
        const std::string error = gunzip(in, out, size, 64, nullptr, 1000000);
        QVERIFY2(error.find("larger than 1000000 bytes") != std::string::npos, error.c_str());
        QCOMPARE(size, size_t(0));
        QVERIFY(out.empty());
    }

    // Reading traceEvents a window at a time gives exactly the profile (strings, ids, events,
    // stats, flows, warnings) that reading the whole text as one document gives, wherever the
    // windows are cut: windows of 1 and 7 bytes hold no whole event and grow; the others cut
    // inside events, inside strings and between them.
    void windowsReadAsTheWholeText() {
        const std::string tricky = trickyEvents(40);
        std::vector<std::string> texts = textsForWindows(tricky);
        texts.emplace_back(kFixture2022);
        texts.emplace_back(kFixture2021);
        for (const std::string& text : texts) {
            const Imported whole = importWith(text, 0);
            for (size_t window : {size_t(1), size_t(7), size_t(64), size_t(300), size_t(4096),
                                  kChromeTraceWindowBytes}) {
                const Imported part = importWith(text, window);
                const QByteArray where = QByteArray("window ") +
                                         QByteArray::number(qulonglong(window)) + " on " +
                                         QByteArray::fromStdString(text.substr(0, 60));
                QVERIFY2(
                    part.error == whole.error,
                    (where + ": " + part.error.c_str() + " vs " + whole.error.c_str()).constData());
                QVERIFY2(bool(part.profile) == bool(whole.profile), where.constData());
                if (!whole.profile) continue;
                compareProfiles(*whole.profile, *part.profile);
                if (QTest::currentTestFailed()) return qWarning("differs: %s", where.constData());
            }
        }
        // The tricky events themselves, counted by hand: per copy 3 X (one kernel) + 1 B/E
        // pair = 4 host events and 1 kernel; "skipped" is skipped 40 times.
        const Imported r = importWith("[" + tricky + "]", 64);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(r.profile->flows().size(), size_t(40));
        QCOMPARE(r.profile->kernels().size(), size_t(40));
        const std::vector<std::string>& warnings = r.profile->hosts()[0].warnings;
        QVERIFY2(std::any_of(warnings.begin(), warnings.end(),
                             [](const std::string& w) {
                                 return w.starts_with("40 events skipped: \"ts\" is not a number");
                             }),
                 warnings.empty() ? "no warnings" : warnings.front().c_str());
    }

    // Field names with escapes: an arg's name is read unescaped ("ke\u0079" is "key", so the
    // event has two "key" stats), and an event field whose name has escapes is not one the
    // importer reads ("n\u0061me" is skipped: the event keeps "name").
    void escapedNamesAreReadUnescaped() {
        const std::string text =
            "[{\"ph\": \"X\", \"name\": \"e\", \"n\\u0061me\": \"other\", \"pid\": 1, "
            "\"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"ke\\u0079\": 7, \"key\": 8, "
            "\"t\\\"q\": 1}}]";
        for (size_t window : {size_t(0), size_t(16), kChromeTraceWindowBytes}) {
            const Imported r = importWith(text, window);
            QVERIFY2(r.error.empty(), r.error.c_str());
            const Profile& p = *r.profile;
            QCOMPARE(p.eventCount(), size_t(1));
            QCOMPARE(p.name(0), std::string_view("e"));
            std::vector<std::pair<std::string, int64_t>> stats;
            for (const StatValue& s : p.eventStats(0))
                stats.emplace_back(std::string(p.str(s.key)), s.asInt());
            const std::vector<std::pair<std::string, int64_t>> expected = {
                {"key", 7}, {"key", 8}, {"t\"q", 1}};
            QCOMPARE(stats, expected);
        }
    }

    // Bad text gives the same message, naming the same byte, read whole or by windows.
    void windowsReportErrorsAsTheWholeText() {
        const std::vector<std::string> texts = badTextsForWindows(trickyEvents(20));
        for (const std::string& text : texts) {
            const Imported whole = importWith(text, 0);
            QVERIFY2(!whole.error.empty(),
                     text.substr(text.size() - std::min<size_t>(40, text.size())).c_str());
            for (size_t window : {size_t(1), size_t(64), size_t(300), kChromeTraceWindowBytes}) {
                const Imported part = importWith(text, window);
                QVERIFY2(
                    part.error == whole.error,
                    (std::to_string(window) + ": " + part.error + " vs " + whole.error).c_str());
            }
        }
    }

    // A cut inside a long string full of "}," (HLO text in an arg, say) moves before the string
    // in one pass over the window, instead of trying each "}," the string holds (one parse of the
    // window each: time grew with the square of the text, and Qt Test's 5-minute watchdog failed
    // this test); a stray quote, after which every cut looks like one inside a string, likewise
    // ends in the whole read's message without a parse per "},".
    void cutsInsideLongStringsMoveOnce() {
        const std::string event =
            "{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}";
        std::string hlo;
        for (int i = 0; i < 500000; ++i) hlo += "},";
        std::string text = "[" + event;
        for (int i = 0; i < 50; ++i) text += ", " + event;
        text += ", {\"ph\": \"X\", \"name\": \"hlo\", \"pid\": 1, \"tid\": 1, \"ts\": 2, "
                "\"dur\": 1, \"args\": {\"text\": \"" +
                hlo + "\"}}";
        for (int i = 0; i < 50; ++i) text += ", " + event;
        text += "]";
        const Imported whole = importWith(text, 0);
        QVERIFY2(whole.error.empty(), whole.error.c_str());
        QCOMPARE(whole.profile->eventCount(), size_t(102));
        for (size_t window : {size_t(64), size_t(4096)}) {
            const Imported part = importWith(text, window);
            QVERIFY2(part.error.empty(), part.error.c_str());
            compareProfiles(*whole.profile, *part.profile);
        }
        std::string stray = "[{\"ph\": \"X\", \"name\": \"aten\"::mm\", \"pid\": 1}";
        for (int i = 0; i < 250000; ++i) stray += ", " + event;
        stray += "]";
        const Imported bad = importWith(stray, 0);
        QVERIFY(!bad.error.empty());
        for (size_t window : {size_t(64), size_t(4096)})
            QCOMPARE(importWith(stray, window).error, bad.error);
    }

    // Every real trace: the same profile by windows as whole.
    void realTracesReadByWindowsAsWhole() {
        if (!fs::is_directory(kKineto)) QSKIP(qPrintable(fixtures::realDataMissing(kKineto)));
        const std::vector<std::string> paths = fixtures::kinetoTracesIn(kKineto);
        for (const std::string& path : paths) {
            const std::string text = gunzipFile(path);
            const Imported whole = importWith(text, 0);
            QVERIFY2(whole.error.empty(), (path + ": " + whole.error).c_str());
            for (size_t window : {size_t(4096), kChromeTraceWindowBytes}) {
                const Imported part = importWith(text, window);
                QVERIFY2(part.error.empty(), (path + ": " + part.error).c_str());
                compareProfiles(*whole.profile, *part.profile);
                if (QTest::currentTestFailed()) return qWarning("%s differs", path.c_str());
            }
        }
        QCOMPARE(paths.size(), size_t(5));
    }
};

QTEST_GUILESS_MAIN(TestKinetoReading)
#include "test_kineto_reading.moc"
