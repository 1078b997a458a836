// The profile cache: a profile read back from the cache equals the one loaded from its source
// (every column, through the public API; and byte for byte every tool's CSV and JSON export and
// the Chrome trace through the CLI, on a synthetic profile and on the real ones), and every way
// an entry can be unusable (truncated anywhere, any byte changed, another format version, wrong
// magic, changed sources, sources still being written) is ignored with a log line, never read,
// and replaced by the next store. Plus eviction by size, clear, cancel and the CLI's cache
// commands. Entries crafted column by column are in test_cache_entries.
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
#include <optional>

#include "model/ProfileCache.h"
#include "model/ProfileLoader.h"
#include "tests/fixtures/CacheEntryFile.h"
#include "tests/fixtures/CacheFolder.h"
#include "tests/fixtures/CompareProfiles.h"
#include "tests/fixtures/SettledSyntheticHost.h"

using namespace stepscope;
using namespace stepscope::testing;
namespace fs = std::filesystem;

namespace {

const std::string kRealData = STEPSCOPE_REALDATA;

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
        QCOMPARE(writeSettledSyntheticHost(root_, 30000, hosts_, 2), std::string());
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
            cache.keyOf({{"worker0", "logs/plugins/profile/run/worker0.xplane.pb"}});
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
                // Every byte of every frame is under its checksum, so every flip is refused, even
                // of a bit the zstd bitstream would not use.
                const std::unique_ptr<Profile> read = cache.load(key);
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
    // the frames follow one another in directory order, each has the XXH64 the directory gives
    // (the low 32 bits of it checked against zstd's own content checksum of the same bytes, an
    // independent implementation), decompresses to the raw size the directory gives, and each
    // column's frames add up to its size. The
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
