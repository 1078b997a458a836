// The profile cache: a profile read back from the cache equals the one loaded from its source
// (every column, through the public API; and byte for byte every tool's CSV and JSON export and
// the Chrome trace through the CLI, on a synthetic profile and on the real ones), and every way
// an entry can be unusable (truncated anywhere, any byte changed, another format version, wrong
// magic, changed sources, sources still being written) is ignored with a log line, never read,
// and replaced by the next store. Plus eviction by size, clear, cancel and the CLI's cache
// commands.
#include <QtTest>

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>

#include <zstd.h>

#include "model/ProfileCache.h"
#include "model/ProfileLoader.h"
#include "model/synthetic/SyntheticProfile.h"
#include "tests/fixtures/CacheEntryFile.h"
#include "tests/fixtures/CompareProfiles.h"
#include "tests/fixtures/SettledSyntheticHost.h"

using namespace stepscope;
using namespace stepscope::testing;
namespace fs = std::filesystem;

namespace {

const std::string kRealData = STEPSCOPE_REALDATA;

// Collects the cache's log lines.
struct LogLines {
    std::mutex mutex;
    std::vector<std::pair<bool, std::string>> lines;
    ProfileCache::Log sink() {
        return [this](bool problem, const std::string& line) {
            const std::lock_guard lock(mutex);
            lines.emplace_back(problem, line);
        };
    }
    bool has(const std::string& part) {
        const std::lock_guard lock(mutex);
        for (const auto& [problem, line] : lines)
            if (line.find(part) != std::string::npos) return true;
        return false;
    }
    std::string last() {
        const std::lock_guard lock(mutex);
        return lines.empty() ? std::string() : lines.back().second;
    }
};

void setAge(const std::string& path, std::chrono::seconds age) {
    fs::last_write_time(path, fs::file_time_type::clock::now() - age);
}

std::vector<uint8_t> readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// A profile loaded from host files and stored in a cache that logs to `log`, its entry's file
// and that file taken apart (by store()).
struct StoredEntry {
    LogLines log;
    ProfileCache cache;
    CacheKey key;
    LoadResult source;
    std::vector<uint8_t> file;
    CacheEntry entry;
    StoredEntry(const std::string& folder, const std::vector<HostFile>& hosts)
        : cache(folder, "test", ProfileCache::kDefaultCapBytes, log.sink())
        , key(cache.keyOf(hosts))
        , source(loadHosts(hosts)) {}
    void store() {
        QVERIFY2(source.ok(), source.error.c_str());
        QCOMPARE(cache.store(key, *source.profile), std::string());
        file = readBytes(cache.entryPath(key));
        parseEntry(file, entry);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(entry.columns.size(), kColumnCount);
    }
};

// Writes `entry` as the cache's file for `key` and loads it: refused, with one log line that
// gives `why` as the reason.
void expectRefused(const ProfileCache& cache, const CacheKey& key, LogLines& log,
                   const CacheEntry& entry, const std::string& why) {
    const std::string path = cache.entryPath(key);
    writeBytes(path, assembleEntry(entry));
    const size_t before = log.lines.size();
    QVERIFY2(!cache.load(key), ("read although " + why).c_str());
    QCOMPARE(log.lines.size(), before + 1);
    QVERIFY(log.lines.back().first);
    const std::string want = "cache: ignoring " + path + ": inconsistent: " + why;
    QVERIFY2(log.last() == want, ("logged '" + log.last() + "', expected '" + want + "'").c_str());
}

// Writes `entry` as the cache's file for `key` and loads it: read, and equal to `source`.
void expectRead(const ProfileCache& cache, const CacheKey& key, const CacheEntry& entry,
                const Profile& source) {
    writeBytes(cache.entryPath(key), assembleEntry(entry));
    const std::unique_ptr<Profile> read = cache.load(key);
    QVERIFY(read);
    compareProfiles(source, *read);
}

// Fills freed heap memory and this thread's stack below the caller with `pattern`, so that what
// is allocated or declared next without being written shows it.
[[gnu::noinline]] void scribble(uint8_t pattern) {
    std::vector<std::unique_ptr<uint8_t[]>> blocks;
    for (size_t size = 16; size <= (size_t(1) << 20); size *= 2)
        for (int i = 0; i < 64; ++i) {
            blocks.emplace_back(new uint8_t[size]);
            std::memset(blocks.back().get(), pattern, size);
        }
    volatile uint8_t stack[256 * 1024];
    for (size_t i = 0; i < sizeof stack; ++i) stack[i] = pattern;
}

struct CliRun {
    int exitCode = -1;
    QByteArray out, err;
};

CliRun cli(const QStringList& args, const QString& cacheHome) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", cacheHome);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(STEPSCOPE_CLI), args);
    CliRun r;
    if (!p.waitForFinished(300000)) return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace

class TestProfileCache : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        root_ = dir_.path().toStdString();
        SyntheticOptions o;
        o.events = 30000;
        o.gpus = 2;
        QCOMPARE(writeSyntheticLogDir(o, 2, root_ + "/logs", "run1"), std::string());
        for (const char* h : {"worker0", "worker1"}) {
            hosts_.push_back({h, root_ + "/logs/plugins/profile/run1/" + h + ".xplane.pb"});
            setAge(hosts_.back().path, std::chrono::hours(1));
        }
    }

    void roundTripEqualsSource() {
        LogLines log;
        const ProfileCache cache(root_ + "/c-roundtrip", "test", ProfileCache::kDefaultCapBytes,
                                 log.sink());
        const CacheKey key = cache.keyOf(hosts_);
        QVERIFY(key.ok());
        QVERIFY(key.unsettled.empty());
        QVERIFY(!cache.load(key)); // nothing there yet: a plain miss, not logged
        QVERIFY(log.lines.empty());
        const LoadResult source = loadHosts(hosts_);
        QVERIFY2(source.ok(), source.error.c_str());
        QCOMPARE(cache.store(key, *source.profile), std::string());
        QVERIFY(log.has("cache: wrote"));
        const std::unique_ptr<Profile> cached = cache.load(key);
        QVERIFY(cached);
        compareProfiles(*source.profile, *cached);
        if (QTest::currentTestFailed()) return;

        CachedLoad again = loadHostsCached(hosts_, &cache);
        QVERIFY(again.result.ok());
        QVERIFY(again.fromCache);
        // Another spelling of the same file names the same entry, but the profile keeps the path
        // as given (Host::sourcePath), so it is another key.
        const fs::path cwd = fs::current_path();
        fs::current_path(root_);
        const CacheKey relative =
            cache.keyOf({{"worker0", "logs/plugins/profile/run1/worker0.xplane.pb"}});
        fs::current_path(cwd);
        const CacheKey absolute = cache.keyOf({hosts_[0]});
        QCOMPARE(cache.entryPath(relative), cache.entryPath(absolute));
        QVERIFY(relative.text != absolute.text);

        CachedLoad bypass = loadHostsCached(hosts_, nullptr);
        QVERIFY(bypass.result.ok());
        QVERIFY(!bypass.fromCache);
    }

    // Truncation at every offset of the header and at many through the rest; then every byte
    // of the header, key and directory changed, and bytes through the data. Each copy is
    // ignored with a log line, or (a data bit zstd does not read) read equal to the source.
    void damagedEntriesAreIgnored() {
        LogLines log;
        const ProfileCache cache(root_ + "/c-damage", "test", ProfileCache::kDefaultCapBytes,
                                 log.sink());
        const std::vector<HostFile> one{hosts_[0]};
        const CacheKey key = cache.keyOf(one);
        const LoadResult source = loadHosts(one);
        QVERIFY(source.ok());
        QCOMPARE(cache.store(key, *source.profile), std::string());
        const std::string path = cache.entryPath(key);
        const std::vector<uint8_t> good = readBytes(path);
        QVERIFY(good.size() > 1000);
        uint64_t keyBytes = 0, dirBytes = 0;
        std::memcpy(&keyBytes, good.data() + 16, 8);
        std::memcpy(&dirBytes, good.data() + 24, 8);
        const size_t dataStart = 48 + keyBytes + dirBytes;

        std::vector<size_t> cuts;
        for (size_t i = 0; i <= dataStart + 64; ++i) cuts.push_back(i);
        for (size_t i = dataStart; i < good.size(); i += good.size() / 97 + 1) cuts.push_back(i);
        cuts.push_back(good.size() - 1);
        for (size_t cut : cuts) {
            writeBytes(path, std::vector<uint8_t>(good.begin(), good.begin() + long(cut)));
            const size_t before = log.lines.size();
            QVERIFY2(!cache.load(key), ("truncated at " + std::to_string(cut)).c_str());
            QVERIFY2(log.lines.size() == before + 1 &&
                         log.last().find("ignoring") != std::string::npos,
                     ("no log line for a cut at " + std::to_string(cut)).c_str());
        }
        // One byte more is no better.
        std::vector<uint8_t> longer = good;
        longer.push_back(0);
        writeBytes(path, longer);
        QVERIFY(!cache.load(key));
        QVERIFY(log.last().find("truncated or padded") != std::string::npos);

        std::vector<size_t> flips;
        for (size_t i = 0; i < dataStart; ++i) flips.push_back(i);
        for (size_t i = dataStart; i < good.size(); i += good.size() / 499 + 1) flips.push_back(i);
        flips.push_back(good.size() - 1);
        for (size_t at : flips) {
            for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80)}) {
                std::vector<uint8_t> bad = good;
                bad[at] ^= mask;
                writeBytes(path, bad);
                const size_t before = log.lines.size();
                const std::unique_ptr<Profile> read = cache.load(key);
                // A flipped bit zstd's bitstream does not use (the frames differ from run to run:
                // some columns hold struct padding) decodes to the same columns: harmless, as
                // long as what is read equals the source. Everything else is refused.
                if (read && at >= dataStart) {
                    compareProfiles(*read, *source.profile);
                    if (QTest::currentTestFailed()) return;
                    continue;
                }
                QVERIFY2(!read, ("byte " + std::to_string(at) + " changed").c_str());
                QVERIFY2(log.lines.size() == before + 1,
                         ("no log line for byte " + std::to_string(at)).c_str());
            }
        }

        // The next store replaces the damaged file; it is read again.
        QCOMPARE(cache.store(key, *source.profile), std::string());
        QCOMPARE(readBytes(path).size(), good.size());
        QVERIFY(cache.load(key));
    }

    // Entries whose frames and header checksum are sound but whose columns contradict each other
    // are refused by the cache's structural check, with its reason in the log line: an event's
    // metadata index or stat list offset out of range ("event N"), a flow's launch or target past
    // the events ("flows"), a flow order index past the flows ("flow order"), a kernel's index past
    // its details ("kernel details"); with two problems, the one the check reports first (events
    // before flows). Each edited column rewritten unchanged, a metadata index at the largest valid
    // value, and the entry as written are read.
    void inconsistentColumnsAreRefused() {
        StoredEntry stored(root_ + "/c-inconsistent", hosts_);
        stored.store();
        if (QTest::currentTestFailed()) return;
        LogLines& log = stored.log;
        const ProfileCache& cache = stored.cache;
        const CacheKey& key = stored.key;
        const Profile& p = *stored.source.profile;
        const CacheEntry& entry = stored.entry;

        // The index list above still matches forEachColumn: the edited columns have the element
        // size, length and values of the profile's.
        const size_t n = p.eventCount();
        const size_t flows = p.flows().size();
        const size_t kernels = p.kernels().size();
        QVERIFY(n > 1000 && flows > 0 && kernels > 0 && !p.kernelDetailsTable().empty());
        for (size_t c : {kMetaColumn, kStatBeginColumn, kKernelValuesColumn, kFlowsByTargetColumn})
            QCOMPARE(entry.columns[c].elementSize, uint32_t(sizeof(uint32_t)));
        QCOMPARE(entry.columns[kFlowsColumn].elementSize, uint32_t(2 * sizeof(uint32_t)));
        QCOMPARE(entry.columns[kStatBlobColumn].elementSize, uint32_t(1));
        QCOMPARE(entry.columns[kMetaColumn].bytes, uint64_t(4 * n));
        QCOMPARE(entry.columns[kStatBeginColumn].bytes, uint64_t(4 * n));
        QCOMPARE(entry.columns[kKernelValuesColumn].bytes, uint64_t(4 * kernels));
        QCOMPARE(entry.columns[kFlowsColumn].bytes, uint64_t(8 * flows));
        QCOMPARE(entry.columns[kFlowsByTargetColumn].bytes, uint64_t(4 * flows));
        const std::vector<uint32_t> meta = columnValues<uint32_t>(entry.columns[kMetaColumn]);
        QVERIFY(std::equal(meta.begin(), meta.end(), p.metadataColumn().begin(),
                           p.metadataColumn().end()));
        const std::vector<uint32_t> kernelValues =
            columnValues<uint32_t>(entry.columns[kKernelValuesColumn]);
        QVERIFY(std::equal(kernelValues.begin(), kernelValues.end(), p.kernels().values().begin(),
                           p.kernels().values().end()));
        const std::vector<Flow> flowValues = columnValues<Flow>(entry.columns[kFlowsColumn]);
        QVERIFY(std::equal(flowValues.begin(), flowValues.end(), p.flows().begin(), p.flows().end(),
                           [](const Flow& a, const Flow& b) {
                               return a.launch == b.launch && a.target == b.target;
                           }));
        const uint32_t metadataCount = uint32_t(p.metadata().size());
        const uint32_t statBlobBytes = uint32_t(entry.columns[kStatBlobColumn].bytes);

        // Rewritten unchanged (one frame per column): read, equal to the source.
        for (size_t c :
             {kMetaColumn, kStatBeginColumn, kKernelValuesColumn, kFlowsByTargetColumn}) {
            expectRead(cache, key, edited<uint32_t>(entry, c, [](std::vector<uint32_t>&) {}), p);
            if (QTest::currentTestFailed()) return;
        }
        expectRead(cache, key, edited<Flow>(entry, kFlowsColumn, [](std::vector<Flow>&) {}), p);
        if (QTest::currentTestFailed()) return;

        // A duration marked long that the table of long durations does not hold.
        QCOMPARE(entry.columns[kNarrowDurationColumn].bytes, uint64_t(4 * n));
        expectRefused(cache, key, log,
                      edited<uint32_t>(entry, kNarrowDurationColumn,
                                       [](std::vector<uint32_t>& v) {
                                           auto firstShort =
                                               std::find_if(v.begin(), v.end(), [](uint32_t d) {
                                                   return d != DurationColumn::kLong;
                                               });
                                           if (firstShort != v.end())
                                               *firstShort = DurationColumn::kLong;
                                       }),
                      "long durations");
        if (QTest::currentTestFailed()) return;

        // A start marked long that the table of long starts does not hold, and a block whose
        // unit is none of 1, 1000 and 1000000 ps.
        // A block record is 16 bytes (an int64 base, an int64 unit), one per 128 events; the
        // marker of a long start is 0xFFFFFFFF.
        QCOMPARE(entry.columns[kStartOffsetColumn].bytes, uint64_t(4 * n));
        QCOMPARE(entry.columns[kStartBlockColumn].elementSize, uint32_t(16));
        QCOMPARE(entry.columns[kStartBlockColumn].bytes, uint64_t(16 * ((n + 127) / 128)));
        expectRefused(
            cache, key, log,
            edited<uint32_t>(entry, kStartOffsetColumn,
                             [](std::vector<uint32_t>& v) { v[v.size() / 2] = 0xFFFFFFFFu; }),
            "start blocks");
        if (QTest::currentTestFailed()) return;
        expectRefused(cache, key, log,
                      edited<StartColumn::Block>(
                          entry, kStartBlockColumn,
                          [](std::vector<StartColumn::Block>& v) { v.back().unit = 7; }),
                      "start blocks");
        if (QTest::currentTestFailed()) return;

        // A flow whose launch differs from the first's, and a place in the target order where
        // the target changes (the profile has both: checked).
        size_t firstOtherLaunch = 1;
        while (firstOtherLaunch < flows &&
               p.flows()[firstOtherLaunch].launch == p.flows()[0].launch)
            ++firstOtherLaunch;
        const std::vector<uint32_t> byTarget =
            columnValues<uint32_t>(entry.columns[kFlowsByTargetColumn]);
        size_t targetStep = 0;
        while (targetStep + 1 < flows &&
               p.flows()[byTarget[targetStep]].target == p.flows()[byTarget[targetStep + 1]].target)
            ++targetStep;
        QVERIFY(firstOtherLaunch < flows && targetStep + 1 < flows && kernels > 1);
        QCOMPARE(entry.columns[kKernelLowColumn].elementSize, uint32_t(sizeof(uint16_t)));
        QCOMPARE(entry.columns[kKernelLowColumn].bytes, uint64_t(2 * kernels));

        const size_t e = n / 2 + 1;
        const auto badMeta = [e, metadataCount](std::vector<uint32_t>& v) { v[e] = metadataCount; };
        const struct {
            CacheEntry entry;
            std::string why;
        } cases[] = {
            {edited<uint32_t>(entry, kMetaColumn, badMeta), "event " + std::to_string(e)},
            {edited<uint32_t>(
                 entry, kMetaColumn,
                 [n, metadataCount](std::vector<uint32_t>& v) { v[n - 1] = metadataCount; }),
             "event " + std::to_string(n - 1)},
            {edited<uint32_t>(entry, kStatBeginColumn,
                              [statBlobBytes](std::vector<uint32_t>& v) { v[7] = statBlobBytes; }),
             "event 7"},
            {edited<Flow>(entry, kFlowsColumn,
                          [n](std::vector<Flow>& v) { v.back().target = uint32_t(n); }),
             "flows"},
            {edited<Flow>(entry, kFlowsColumn,
                          [n](std::vector<Flow>& v) { v.front().launch = uint32_t(n); }),
             "flows"},
            {edited<uint32_t>(entry, kFlowsByTargetColumn,
                              [flows](std::vector<uint32_t>& v) { v[0] = uint32_t(flows); }),
             "flow order"},
            {edited<uint32_t>(entry, kKernelValuesColumn,
                              [&p](std::vector<uint32_t>& v) {
                                  v[v.size() / 2] = uint32_t(p.kernelDetailsTable().size());
                              }),
             "kernel details"},
            // Two kernels' events swapped: the table is no longer in event order.
            {edited<uint16_t>(entry, kKernelLowColumn,
                              [](std::vector<uint16_t>& v) { std::swap(v[0], v[1]); }),
             "side table of kernels"},
            // Two flows of different launches swapped: no longer in launch order.
            {edited<Flow>(entry, kFlowsColumn,
                          [firstOtherLaunch](std::vector<Flow>& v) {
                              std::swap(v[0], v[firstOtherLaunch]);
                          }),
             "flow order"},
            // A flow listed twice in the target order (and another not at all).
            {edited<uint32_t>(entry, kFlowsByTargetColumn,
                              [](std::vector<uint32_t>& v) { v[1] = v[0]; }),
             "flow order"},
            // Two neighbours of different targets swapped in the target order.
            {edited<uint32_t>(entry, kFlowsByTargetColumn,
                              [targetStep](std::vector<uint32_t>& v) {
                                  std::swap(v[targetStep], v[targetStep + 1]);
                              }),
             "flow order"},
            {edited<Flow>(edited<uint32_t>(entry, kMetaColumn, badMeta), kFlowsColumn,
                          [n](std::vector<Flow>& v) { v.back().target = uint32_t(n); }),
             "event " + std::to_string(e)},
        };
        for (const auto& c : cases) {
            expectRefused(cache, key, log, c.entry, c.why);
            if (QTest::currentTestFailed()) return;
        }

        // The largest valid metadata index is read as it was written.
        writeBytes(cache.entryPath(key),
                   assembleEntry(edited<uint32_t>(entry, kMetaColumn,
                                                  [e, metadataCount](std::vector<uint32_t>& v) {
                                                      v[e] = metadataCount - 1;
                                                  })));
        const std::unique_ptr<Profile> last = cache.load(key);
        QVERIFY(last);
        QCOMPARE(last->metadataOf(EventIndex(e)), metadataCount - 1);

        writeBytes(cache.entryPath(key), stored.file);
        const std::unique_ptr<Profile> read = cache.load(key);
        QVERIFY(read);
        compareProfiles(p, *read);
    }

    // Event 7's stat list replaced by one written here by hand (placed after the others, so the
    // stat bytes still end with 0). The cache does not parse every list when it opens an entry;
    // the lists are read within bounds instead (StatList.h): a list that reads past its key table,
    // names a string the pool does not have, has a type no stat has, or runs off the end of the
    // bytes reads as its entries before the first malformed one, and the entry still opens.
    // Well-formed lists, up to the last key and string, are read as written.
    void malformedStatListsReadUpToTheirFirstBadEntry() {
        StoredEntry stored(root_ + "/c-statlists", hosts_);
        stored.store();
        if (QTest::currentTestFailed()) return;
        const CacheEntry& entry = stored.entry;
        const std::vector<uint32_t> keyNames =
            columnValues<uint32_t>(entry.columns[kStatKeysColumn]);
        const uint32_t keys = uint32_t(keyNames.size());
        const uint32_t strings = uint32_t(stored.source.profile->strings().size());
        QVERIFY(keys > 2 && strings > 2);
        QCOMPARE(entry.columns[kStatKeysColumn].elementSize, uint32_t(sizeof(StringId)));
        const uint64_t blobBytes = entry.columns[kStatBlobColumn].bytes;

        const auto varint = [](uint64_t v) {
            std::vector<uint8_t> out;
            for (; v >= 0x80; v >>= 7) out.push_back(uint8_t(v) | 0x80);
            out.push_back(uint8_t(v));
            return out;
        };
        const auto list = [&](std::initializer_list<std::vector<uint8_t>> parts) {
            std::vector<uint8_t> out;
            for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
            return out;
        };
        const auto tag = [&](uint64_t key, unsigned type) { return varint(key << 3 | type); };
        const auto withList = [&](const std::vector<uint8_t>& bytes) {
            return edited<uint32_t>(
                edited<uint8_t>(entry, kStatBlobColumn,
                                [&bytes](std::vector<uint8_t>& v) {
                                    v.insert(v.end(), bytes.begin(), bytes.end());
                                }),
                kStatBeginColumn,
                [blobBytes](std::vector<uint32_t>& v) { v[7] = uint32_t(blobBytes); });
        };
        const auto statsOf7 = [&](const std::vector<uint8_t>& bytes) {
            writeBytes(stored.cache.entryPath(stored.key), assembleEntry(withList(bytes)));
            std::vector<StatValue> stats;
            const std::unique_ptr<Profile> read = stored.cache.load(stored.key);
            if (!read) return std::optional<std::vector<StatValue>>();
            for (const StatValue& v : read->eventStats(7)) stats.push_back(v);
            // The events around it read as they were stored.
            for (EventIndex e : {EventIndex(6), EventIndex(8)}) {
                compareEventStats(*stored.source.profile, *read, e);
                if (QTest::currentTestFailed()) return std::optional<std::vector<StatValue>>();
            }
            return std::optional<std::vector<StatValue>>(std::move(stats));
        };
        const unsigned int64 = unsigned(StatType::Int64), uint64 = unsigned(StatType::Uint64),
                       dbl = unsigned(StatType::Double), str = unsigned(StatType::Str),
                       ref = unsigned(StatType::Ref);
        const std::vector<uint8_t> end{0};
        struct Case {
            std::vector<uint8_t> bytes;
            size_t entriesRead;
            int64_t firstValue = 0; // of the one entry read: key 1, an Int64
            bool cutByTheEnd = false;
        };
        const Case cases[] = {
            {list({tag(keys, int64), {2}, end}), 0},                  // key index past the table
            {list({tag(0, str), {1}, end}), 0},                       // key index 0
            {list({tag(1, 6), {2}, end}), 0},                         // type 6
            {list({tag(1, 7), {2}, end}), 0},                         // type 7
            {list({tag(1, str), varint(strings), end}), 0},           // a string the pool lacks
            {list({tag(2, ref), varint(uint64_t(1) << 40), end}), 0}, // and far past it
            {list({tag(1, dbl), {0, 0, 0}}), 0, 0, true},             // 8 bytes wanted, 3 left
            {list({tag(1, uint64), std::vector<uint8_t>(10, 0x80), {1}, end}), 0}, // 11 bytes
            {list({tag(1, int64), {0x80, 0x80, 0}}), 1, 0, true}, // no terminator after the value
            {list({tag(1, int64), {2}, tag(keys + 5, int64), {2}, end}), 1, 1}, // the second one
        };
        // Each list at the very end of the stat bytes (read checking every byte against the end)
        // and, but for the two cut by the end, followed by 32 zero bytes (read checking only the
        // lengths of its varints).
        for (const Case& c : cases)
            for (size_t padding : {size_t(0), size_t(32)}) {
                if (padding && c.cutByTheEnd) continue;
                std::vector<uint8_t> bytes = c.bytes;
                bytes.resize(bytes.size() + padding, 0);
                const auto stats = statsOf7(bytes);
                QVERIFY(stats);
                QCOMPARE(stats->size(), c.entriesRead);
                if (c.entriesRead == 1) {
                    QCOMPARE((*stats)[0].key, keyNames[1]);
                    QVERIFY((*stats)[0].type == StatType::Int64);
                    QCOMPARE((*stats)[0].asInt(), c.firstValue);
                }
            }

        // The last key and the last string: read back as written (zigzag 3 is -2).
        const auto stats =
            statsOf7(list({tag(keys - 1, int64), {3}, tag(1, str), varint(strings - 1), end}));
        QVERIFY(stats);
        QCOMPARE(stats->size(), size_t(2));
        QCOMPARE((*stats)[0].key, keyNames[keys - 1]);
        QCOMPARE((*stats)[0].asInt(), int64_t(-2));
        QCOMPARE((*stats)[1].key, keyNames[1]);
        QVERIFY((*stats)[1].type == StatType::Str);
        QCOMPARE((*stats)[1].asString(), StringId(strings - 1));
    }

    // The per-event check runs in slices of 2^21 events. On a profile of more than 2^21 events a
    // bad metadata index in the second slice is found, at its first event and at the profile's
    // last; of two bad events in different slices the lower is reported, also when the higher is
    // the first event its slice reads and the lower the last of its own.
    void inconsistentEventPastFirstSliceIsRefused() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();
        QElapsedTimer timer;
        timer.start();
        std::vector<HostFile> hosts;
        QCOMPARE(testing::writeSettledSyntheticHost(root, 2200000, hosts), std::string());
        const double generated = double(timer.restart()) / 1e3;
        StoredEntry stored(root + "/cache", hosts);
        const double loaded = double(timer.restart()) / 1e3;
        stored.store();
        if (QTest::currentTestFailed()) return;
        qInfo("%zu events: generated in %.2f s, loaded in %.2f s, stored and taken apart in %.2f s",
              stored.source.profile->eventCount(), generated, loaded,
              double(timer.elapsed()) / 1e3);
        LogLines& log = stored.log;
        const ProfileCache& cache = stored.cache;
        const CacheKey& key = stored.key;
        const Profile& p = *stored.source.profile;
        const CacheEntry& entry = stored.entry;

        constexpr size_t kSlice = size_t(1) << 21; // 2097152
        const size_t n = p.eventCount();
        QVERIFY(n > kSlice + 1);
        QCOMPARE(entry.columns[kMetaColumn].elementSize, uint32_t(sizeof(uint32_t)));
        QCOMPARE(entry.columns[kMetaColumn].bytes, uint64_t(4 * n));
        QVERIFY(entry.columns[kMetaColumn].frames.size() > 1); // rewritten as one frame below
        const uint32_t bad = uint32_t(p.metadata().size());
        const auto badAt = [&entry, bad](std::vector<size_t> events) {
            return edited<uint32_t>(entry, kMetaColumn, [&events, bad](std::vector<uint32_t>& v) {
                for (size_t e : events) v[e] = bad;
            });
        };
        expectRefused(cache, key, log, badAt({kSlice}), "event 2097152");
        expectRefused(cache, key, log, badAt({n - 1}), "event " + std::to_string(n - 1));
        expectRefused(cache, key, log, badAt({kSlice - 1, kSlice}), "event 2097151");
        expectRefused(cache, key, log, badAt({n - 1, 5}), "event 5");
        // Unchanged values in one frame: read.
        writeBytes(cache.entryPath(key), assembleEntry(badAt({})));
        QVERIFY(cache.load(key));
    }

    void otherVersionAndMagicAreIgnored() {
        LogLines log;
        const ProfileCache cache(root_ + "/c-version", "test", ProfileCache::kDefaultCapBytes,
                                 log.sink());
        const std::vector<HostFile> one{hosts_[1]};
        const CacheKey key = cache.keyOf(one);
        const LoadResult source = loadHosts(one);
        QVERIFY(source.ok());
        QCOMPARE(cache.store(key, *source.profile), std::string());
        const std::string path = cache.entryPath(key);
        const std::vector<uint8_t> good = readBytes(path);

        std::vector<uint8_t> other = good;
        const uint32_t version = ProfileCache::kFormatVersion + 1;
        std::memcpy(other.data() + 8, &version, 4);
        resealHeader(other);
        writeBytes(path, other);
        QVERIFY(!cache.load(key));
        QVERIFY2(log.last().find("cache format version " + std::to_string(version)) !=
                     std::string::npos,
                 log.last().c_str());

        std::vector<uint8_t> foreign = good;
        std::memcpy(foreign.data(), "PK\x03\x04", 4);
        writeBytes(path, foreign);
        QVERIFY(!cache.load(key));
        QVERIFY(log.last().find("wrong magic") != std::string::npos);

        // Another program version writes under the same name but another key: stale for us.
        writeBytes(path, good);
        const ProfileCache newer(root_ + "/c-version", "test2", ProfileCache::kDefaultCapBytes,
                                 log.sink());
        QVERIFY(!newer.load(newer.keyOf(one)));
        QVERIFY(log.last().find("stale") != std::string::npos);
        QVERIFY(cache.load(key));
    }

    // A source whose time or size changed makes its entry stale: ignored, then replaced.
    void changedSourcesMakeEntriesStale() {
        LogLines log;
        const ProfileCache cache(root_ + "/c-stale", "test", ProfileCache::kDefaultCapBytes,
                                 log.sink());
        const std::string copy = root_ + "/stale-host.xplane.pb";
        fs::copy_file(hosts_[0].path, copy);
        setAge(copy, std::chrono::hours(2));
        const std::vector<HostFile> one{{"worker0", copy}};
        const LoadResult source = loadHosts(one);
        QVERIFY(source.ok());
        QCOMPARE(cache.store(cache.keyOf(one), *source.profile), std::string());
        QVERIFY(cache.load(cache.keyOf(one)));

        setAge(copy, std::chrono::hours(3)); // touched: another modification time
        QVERIFY(!cache.load(cache.keyOf(one)));
        QVERIFY2(log.last().find("stale") != std::string::npos &&
                     log.last().find("mtime_ns") != std::string::npos,
                 log.last().c_str());
        QCOMPARE(cache.store(cache.keyOf(one), *source.profile), std::string());
        QVERIFY(cache.load(cache.keyOf(one)));

        // Another size at the same time: rewritten in place within the clock's granularity.
        const auto time = fs::last_write_time(copy);
        {
            std::ofstream grow(copy, std::ios::binary | std::ios::app);
            grow.put('\0');
        }
        fs::last_write_time(copy, time);
        QVERIFY(!cache.load(cache.keyOf(one)));
        QVERIFY(log.last().find("stale") != std::string::npos);

        // A missing source has no key; nothing is read.
        fs::remove(copy);
        const CacheKey gone = cache.keyOf(one);
        QVERIFY(!gone.ok());
        QVERIFY(gone.error.find(copy) != std::string::npos);
        QVERIFY(!cache.load(gone));
    }

    // A source modified in the last seconds may still be changing: not cached.
    void unsettledSourcesAreNotCached() {
        LogLines log;
        const ProfileCache cache(root_ + "/c-fresh", "test", ProfileCache::kDefaultCapBytes,
                                 log.sink());
        const std::string fresh = root_ + "/fresh.xplane.pb";
        fs::copy_file(hosts_[0].path, fresh);
        setAge(fresh, std::chrono::seconds(0));
        const std::vector<HostFile> one{{"fresh", fresh}};
        const CacheKey key = cache.keyOf(one);
        QVERIFY(key.ok());
        QVERIFY(!key.unsettled.empty());
        const LoadResult source = loadHosts(one);
        QVERIFY(source.ok());
        QVERIFY(cache.store(key, *source.profile).find("may still be changing") !=
                std::string::npos);
        QVERIFY(!fs::exists(cache.entryPath(key)));
        QCOMPARE(cache.info().entries, size_t(0));
    }

    void evictsLeastRecentlyUsedAboveCap() {
        LogLines log;
        const std::string folder = root_ + "/c-evict";
        const ProfileCache measure(folder, "test");
        std::vector<std::vector<HostFile>> sets;
        std::vector<std::shared_ptr<const Profile>> profiles;
        for (int i = 0; i < 3; ++i) {
            const std::string copy = root_ + "/evict" + std::to_string(i) + ".xplane.pb";
            fs::copy_file(hosts_[0].path, copy);
            setAge(copy, std::chrono::hours(1));
            sets.push_back({{"h", copy}});
            profiles.push_back(loadHosts(sets.back()).profile);
            QVERIFY(profiles.back());
        }
        QCOMPARE(measure.store(measure.keyOf(sets[0]), *profiles[0]), std::string());
        const uint64_t entryBytes = measure.info().bytes;
        QVERIFY(entryBytes > 0);
        QCOMPARE(measure.clear(), std::string());

        // Room for two entries: the third store evicts the least recently used one.
        const ProfileCache cache(folder, "test", entryBytes * 2 + entryBytes / 2, log.sink());
        QCOMPARE(cache.store(cache.keyOf(sets[0]), *profiles[0]), std::string());
        QCOMPARE(cache.store(cache.keyOf(sets[1]), *profiles[1]), std::string());
        // Entry 0 is older, but reading it makes entry 1 the least recently used.
        fs::last_write_time(cache.entryPath(cache.keyOf(sets[0])),
                            fs::file_time_type::clock::now() - std::chrono::minutes(10));
        fs::last_write_time(cache.entryPath(cache.keyOf(sets[1])),
                            fs::file_time_type::clock::now() - std::chrono::minutes(5));
        QVERIFY(cache.load(cache.keyOf(sets[0])));
        QCOMPARE(cache.store(cache.keyOf(sets[2]), *profiles[2]), std::string());
        QCOMPARE(cache.info().entries, size_t(2));
        QVERIFY(fs::exists(cache.entryPath(cache.keyOf(sets[0]))));
        QVERIFY(!fs::exists(cache.entryPath(cache.keyOf(sets[1]))));
        QVERIFY(fs::exists(cache.entryPath(cache.keyOf(sets[2]))));
        QVERIFY(log.has("evicted " + cache.entryPath(cache.keyOf(sets[1]))));

        // An entry larger than the whole cap is not written at all.
        const ProfileCache tiny(root_ + "/c-tiny", "test", 1000, log.sink());
        QVERIFY(tiny.store(tiny.keyOf(sets[0]), *profiles[0]).find("cap") != std::string::npos);
        QCOMPARE(tiny.info().entries, size_t(0));

        QCOMPARE(cache.clear(), std::string());
        QCOMPARE(cache.info().entries, size_t(0));
        QCOMPARE(cache.info().bytes, uint64_t(0));
        const ProfileCache missing(root_ + "/never-made", "test");
        QCOMPARE(missing.clear(), std::string());
    }

    void cancelledReadReturnsNothing() {
        LogLines log;
        const ProfileCache cache(root_ + "/c-cancel", "test", ProfileCache::kDefaultCapBytes,
                                 log.sink());
        const CacheKey key = cache.keyOf(hosts_);
        QCOMPARE(cache.store(key, *loadHosts(hosts_).profile), std::string());
        Progress progress;
        progress.cancel();
        const size_t before = log.lines.size();
        QVERIFY(!cache.load(key, &progress));
        QCOMPARE(log.lines.size(), before); // not a problem with the entry
        CachedLoad r = loadHostsCached(hosts_, &cache, &progress);
        QVERIFY(r.result.cancelled);
    }

    // The entry is written in one pass (frames streamed in order, header and directory last):
    // read here independently of ProfileCache, the header's section sizes add up to the file,
    // the frames follow one another in directory order, each decompresses (zstd, checksum on)
    // to the raw size the directory gives, and each column's frames add up to its size. The
    // synthetic run's columns take more frames than one write window (2 frames a core).
    // The same profile gives the same cache file: every byte written is defined (the column
    // structs have no hidden padding), so a byte compare of two entries finds damage, and no stray
    // heap or stack bytes reach the disk. Memory is filled with another pattern before each load,
    // so padding, were there any, would differ.
    void sameProfileGivesTheSameBytes() {
        const ProfileCache a(root_ + "/c-same-a", "test"), b(root_ + "/c-same-b", "test");
        std::vector<std::vector<uint8_t>> entries;
        for (const auto& [cache, pattern] : {std::pair{&a, 0xA5}, std::pair{&b, 0x5A}}) {
            scribble(uint8_t(pattern));
            const LoadResult source = loadHosts(hosts_);
            QVERIFY2(source.ok(), source.error.c_str());
            const CacheKey key = cache->keyOf(hosts_);
            QCOMPARE(cache->store(key, *source.profile), std::string());
            entries.push_back(readBytes(cache->entryPath(key)));
        }
        QVERIFY(entries[0].size() > 1000);
        QCOMPARE(entries[0].size(), entries[1].size());
        const auto [at, unused] =
            std::mismatch(entries[0].begin(), entries[0].end(), entries[1].begin());
        QVERIFY2(at == entries[0].end(),
                 qPrintable(QString("the entries differ at byte %1").arg(at - entries[0].begin())));
    }

    void writtenEntryIsContiguousAndComplete() {
        const ProfileCache cache(root_ + "/c-layout", "test");
        const CacheKey key = cache.keyOf(hosts_);
        QCOMPARE(cache.store(key, *loadHosts(hosts_).profile), std::string());
        const std::vector<uint8_t> b = readBytes(cache.entryPath(key));
        QVERIFY(b.size() > 48);
        const auto u32 = [&b](size_t at) { return fieldAt<uint32_t>(b, at); };
        const auto u64 = [&b](size_t at) { return fieldAt<uint64_t>(b, at); };
        QCOMPARE(std::string(b.begin(), b.begin() + 8), std::string("STEPSCCH"));
        const uint64_t keyBytes = u64(16), dirBytes = u64(24), dataBytes = u64(32);
        QCOMPARE(uint64_t(b.size()), 48 + keyBytes + dirBytes + dataBytes);
        QCOMPARE(std::string(b.begin() + 48, b.begin() + 48 + long(keyBytes)), key.text);
        size_t at = 48 + keyBytes;
        const size_t dirEnd = at + dirBytes;
        const uint32_t columns = u32(at);
        at += 4;
        size_t data = dirEnd, frames = 0;
        std::vector<uint8_t> raw;
        for (uint32_t c = 0; c < columns; ++c) {
            const uint64_t columnBytes = u64(at);
            const uint32_t count = u32(at + 12);
            at += 16;
            uint64_t sum = 0;
            for (uint32_t i = 0; i < count; ++i, ++frames) {
                const uint32_t rawBytes = u32(at), packed = u32(at + 4);
                at += 8;
                QVERIFY(data + packed <= b.size());
                QCOMPARE(ZSTD_getFrameContentSize(b.data() + data, packed),
                         (unsigned long long)rawBytes);
                raw.resize(rawBytes);
                const size_t n = ZSTD_decompress(raw.data(), raw.size(), b.data() + data, packed);
                QVERIFY2(!ZSTD_isError(n), ZSTD_getErrorName(n));
                QCOMPARE(n, size_t(rawBytes));
                data += packed;
                sum += rawBytes;
            }
            QCOMPARE(sum, columnBytes);
        }
        QCOMPARE(at, dirEnd);
        QCOMPARE(data, b.size());
        QVERIFY(frames > 4); // more than one write window on 2 cores
    }

    void unwritableFolderIsReported() {
        LogLines log;
        const std::string blocker = root_ + "/a-file";
        writeBytes(blocker, {1, 2, 3});
        const ProfileCache cache(blocker + "/cache", "test", ProfileCache::kDefaultCapBytes,
                                 log.sink());
        const std::vector<HostFile> one{hosts_[0]};
        const std::string error = cache.store(cache.keyOf(one), *loadHosts(one).profile);
        QVERIFY2(error.find("cannot create the cache folder") != std::string::npos, error.c_str());
        QVERIFY(log.has("not written"));
        QVERIFY(!cache.load(cache.keyOf(one)));
    }

    // Every tool's CSV and JSON export and the Chrome trace, from the cache and from the source,
    // byte for byte: the synthetic two-host run and every real profile.
    void cliExportsAreByteIdentical_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("synthetic") << QString::fromStdString(root_ + "/logs");
        for (const char* p : {"/tf-gpu-bert", "/kineto/worker0.1623143089861.pt.trace.json.gz",
                              "/kineto/df_index_resolver.v100_rank1of2.json.gz",
                              "/jax-rocm/jax_conv_minimal_08.tw003.xplane.pb",
                              "/jax-rocm/te_fused_attn.934987a2fc2f.xplane.pb"})
            QTest::newRow(p) << QString::fromStdString(kRealData + p);
    }
    void cliExportsAreByteIdentical() {
        QFETCH(QString, path);
        if (!QFileInfo::exists(path))
            QSKIP(qPrintable("real profile not present: " + path + " (../shared/realdata)"));
        const QString home = QString::fromStdString(root_) + "/xdg-" + QString::number(qHash(path));
        CliRun first = cli({"info", path}, home);
        QVERIFY2(first.exitCode == 0, first.err.constData());
        const CliRun info = cli({"cache", "info"}, home);
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.contains("entries: 1\n"), info.out.constData());
        const CliRun cachedInfo = cli({"info", path}, home);
        QCOMPARE(cachedInfo.out, first.out);

        const QStringList tools{"tf_stats",       "kernel_stats", "memory_profile",    "overview",
                                "input_pipeline", "pod_viewer",   "tf_data_bottleneck"};
        for (const QString& tool : tools) {
            for (const QString& format : {QStringLiteral("--csv"), QStringLiteral("--json")}) {
                const CliRun cached = cli({"export", tool, path, format, "-"}, home);
                const CliRun source = cli({"export", tool, path, format, "-", "--no-cache"}, home);
                QCOMPARE(cached.exitCode, source.exitCode);
                QCOMPARE(cached.err, source.err);
                QVERIFY2(cached.out == source.out, qPrintable(tool + " " + format));
            }
        }
        const QString a = QString::fromStdString(root_) + "/trace-cached.json";
        const QString b = QString::fromStdString(root_) + "/trace-source.json";
        QCOMPARE(cli({"convert", path, a}, home).exitCode, 0);
        QCOMPARE(cli({"convert", path, b, "--no-cache"}, home).exitCode, 0);
        QVERIFY(readBytes(a.toStdString()) == readBytes(b.toStdString()));
        QVERIFY(!readBytes(a.toStdString()).empty());

        const CliRun cleared = cli({"cache", "clear"}, home);
        QCOMPARE(cleared.exitCode, 0);
        QVERIFY2(cleared.out.startsWith("removed 1 entries"), cleared.out.constData());
        QVERIFY(cli({"cache", "info"}, home).out.contains("entries: 0\n"));
    }

    void cliCacheCommandUsage() {
        const QString home = QString::fromStdString(root_) + "/xdg-usage";
        QCOMPARE(cli({"cache"}, home).exitCode, 2);
        QCOMPARE(cli({"cache", "shred"}, home).exitCode, 2);
        const CliRun dir = cli({"cache", "info", "--dir", QString::fromStdString(root_)}, home);
        QCOMPARE(dir.exitCode, 0);
        QVERIFY(dir.out.contains("entries: 0\n"));
    }

private:
    QTemporaryDir dir_;
    std::string root_;
    std::vector<HostFile> hosts_;
};

QTEST_GUILESS_MAIN(TestProfileCache)
#include "test_profile_cache.moc"
