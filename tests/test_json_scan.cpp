// The Kineto tokenizer's scanners (model/kineto/JsonScan.h) on bare strings: where the events
// array opens, where a window may be cut, where a text ends structurally, and exact times. Every
// expected offset below is counted by hand from the string beside it. (No raw strings: moc
// misreads them.)
#include <QtTest>

#include <string_view>

#include "model/kineto/JsonScan.h"

using namespace stepscope::jsonscan;

class TestJsonScan : public QObject {
    Q_OBJECT

private slots:
    void skipsBlanks() {
        QCOMPARE(skipSpace(" \t\r\nx", 0), size_t(4));
        QCOMPARE(skipSpace("ab", 1), size_t(1));
        QCOMPARE(skipSpace("a  ", 1), size_t(3)); // to the end
        QCOMPARE(trimmed("  {} \n"), std::string_view("{}"));
        QCOMPARE(trimmed(" \t "), std::string_view());
    }

    void findsTheEventsArray() {
        // {"traceEvents" : [ ...: the '[' is at 17.
        QCOMPARE(eventsArrayOpen("{\"traceEvents\" : [{}]}"), size_t(17));
        // A key followed by something other than an array: none (the text's size).
        const std::string_view notArray = "{\"traceEvents\":{}}";
        QCOMPARE(eventsArrayOpen(notArray), notArray.size());
        const std::string_view noKey = "{\"events\":[]}";
        QCOMPARE(eventsArrayOpen(noKey), noKey.size());
        // The first "traceEvents" is the one looked at, even a string value: the caller reads
        // the whole text where the scan finds no array.
        const std::string_view inValue = "{\"a\":\"traceEvents\",\"traceEvents\":[]}";
        QCOMPARE(eventsArrayOpen(inValue), inValue.size());
    }

    void cutsWindowsAfterAnEventsEnd() {
        // Events {"a":1}, {"b":2} ,{"c":3}: the '}' that ends the second is at 15 (a blank and
        // a ',' follow), so a cut before 20 ends the window at 16, just past it; one before 9
        // ends it just past the first, at 7.
        const std::string_view events = "{\"a\":1}, {\"b\":2} ,{\"c\":3}";
        QCOMPARE(windowCut(events, 20), size_t(16));
        QCOMPARE(windowCut(events, 9), size_t(7));
        QCOMPARE(windowCut(events, 7), size_t(0));     // no ',' before the limit
        QCOMPARE(windowCut(events, 1000), size_t(16)); // the limit is capped at the text
        // A ',' after a value that is not an object is no cut.
        QCOMPARE(windowCut("{\"a\":[1,2],\"b\":3}", 18), size_t(0));
    }

    void findsTheLastCommaOutsideStrings() {
        // The "}," inside the string (at 6 and 7) is not a cut; the ',' at 10 is.
        QCOMPARE(lastCommaOutsideStrings("{\"a\":\"},\"},{\"b\":1}"), size_t(10));
        QCOMPARE(lastCommaOutsideStrings("{\"a\":1} , "), size_t(8));
        QCOMPARE(lastCommaOutsideStrings("{\"a\":\"}, \\\"},\"}"), std::string_view::npos);
    }

    void scansOutsideStrings() {
        // Characters visited: { " " : 1 }, with the escaped quote inside the string skipped.
        std::string seen;
        const bool inString = scanOutsideStrings("{\"a\\\"b\":1}", [&](size_t, char c) {
            seen.push_back(c);
            return true;
        });
        QVERIFY(!inString);
        QCOMPARE(seen, std::string("{\"\":1}"));
        QVERIFY(scanOutsideStrings("[\"abc", [](size_t, char) { return true; }));
    }

    void shapesTexts() {
        // [{"a":1},{"b":"]"}] x: the root closes at 19; the last element ends at 18.
        JsonShape s = jsonShape("[{\"a\":1},{\"b\":\"]\"}] x");
        QCOMPARE(s.rootEnd, size_t(19));
        QVERIFY(!s.inString);
        // A root array that never closes: its last whole element's '}' is at 15.
        s = jsonShape("[{\"a\":1},{\"b\":2},{\"c");
        QCOMPARE(s.rootEnd, std::string_view::npos);
        QCOMPARE(s.lastElementEnd, size_t(16));
        QVERIFY(s.inString);
    }

    void readsExactMicroseconds() {
        int64_t ps = 0;
        QVERIFY(parseMicros("68.0", 0, ps));
        QCOMPARE(ps, int64_t(68000000));
        QVERIFY(parseMicros("12.345678", 0, ps));
        QCOMPARE(ps, int64_t(12345678));
        QVERIFY(parseMicros("-3.5", 0, ps));
        QCOMPARE(ps, int64_t(-3500000));
        // An epoch time, against an origin of 1669783687464000 µs: 181.25 µs later.
        QVERIFY(parseMicros("1669783687464181.25", 1669783687464000, ps));
        QCOMPARE(ps, int64_t(181250000));
        // Digits below 1 ps are dropped.
        QVERIFY(parseMicros("1.0000019", 0, ps));
        QCOMPARE(ps, int64_t(1000001));
        QVERIFY(parseMicros("1.5e3", 0, ps));
        QCOMPARE(ps, int64_t(1500000000));
        QVERIFY(!parseMicros("", 0, ps));
        QVERIFY(!parseMicros("1.", 0, ps));
        QVERIFY(!parseMicros("abc", 0, ps));
        QVERIFY(!parseMicros("9999999999999999999", 0, ps)); // 19 digits
        QVERIFY(!parseMicros("9999999999999", 0, ps));       // 9.99e18 ps: out of range
        QCOMPARE(wholeMicros("1669783687464181.25"), int64_t(1669783687464181));
        QCOMPARE(wholeMicros("-7.5"), int64_t(-7));
        QCOMPARE(wholeMicros("x"), int64_t(0));
    }

    void readsSmallIntegers() {
        int64_t v = 0;
        QVERIFY(smallInteger("-42", v));
        QCOMPARE(v, int64_t(-42));
        QVERIFY(smallInteger("999999999999999999", v));
        QCOMPARE(v, int64_t(999999999999999999));
        QVERIFY(!smallInteger("1000000000000000000", v)); // 19 digits: not "small"
        QVERIFY(!smallInteger("1.5", v));
        QVERIFY(!smallInteger("-", v));
        QVERIFY(!smallInteger("", v));
    }
};

QTEST_GUILESS_MAIN(TestJsonScan)
#include "test_json_scan.moc"
