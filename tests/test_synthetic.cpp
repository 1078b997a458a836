// The synthetic profile generator: deterministic, loads as a realistic GPU training profile, and
// lays out a TensorBoard log directory.

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <set>

#include "model/LogDir.h"
#include "model/ProfileLoader.h"
#include "model/synthetic/SyntheticProfile.h"

using namespace stepscope;

namespace {

std::shared_ptr<const Profile> loadSynthetic(const SyntheticOptions& options,
                                             const std::string& host = "worker0") {
    const std::vector<uint8_t> bytes = generateSyntheticXSpace(options, host);
    LoadResult r = loadXSpaceBytes(bytes, host);
    if (!r.ok()) qFatal("synthetic profile did not load: %s", r.error.c_str());
    return r.profile;
}

const Plane* planeNamed(const Profile& p, std::string_view name) {
    for (const Plane& plane : p.planes())
        if (p.str(plane.name) == name) return &plane;
    return nullptr;
}

} // namespace

class TestSynthetic : public QObject {
    Q_OBJECT

private slots:
    void deterministicForSeedAndHost() {
        SyntheticOptions o;
        o.events = 30000;
        const auto a = generateSyntheticXSpace(o, "worker0");
        QCOMPARE(generateSyntheticXSpace(o, "worker0"), a);
        QVERIFY(generateSyntheticXSpace(o, "worker1") != a); // hosts differ in timing
        o.seed = 2;
        QVERIFY(generateSyntheticXSpace(o, "worker0") != a);
    }

    void structureOfOneHost_data() {
        QTest::addColumn<quint64>("events");
        QTest::addColumn<int>("gpus");
        QTest::newRow("20k events, 2 GPUs") << quint64(20000) << 2;
        QTest::newRow("5k events, 1 GPU") << quint64(5000) << 1;
        QTest::newRow("300k events, 4 GPUs") << quint64(300000) << 4;
        QTest::newRow("1M events, 2 GPUs") << quint64(1000000) << 2;
    }
    void structureOfOneHost() {
        QFETCH(quint64, events);
        QFETCH(int, gpus);
        SyntheticOptions o;
        o.events = events;
        o.gpus = gpus;
        const auto profile = loadSynthetic(o);
        const Profile& p = *profile;

        // Within 10% of the events asked for.
        const double ratio = double(p.eventCount()) / double(events);
        QVERIFY2(ratio > 0.9 && ratio < 1.1,
                 qPrintable(QString("%1 events for %2 asked").arg(p.eventCount()).arg(events)));

        QCOMPARE(int(p.planes().size()), 1 + gpus);
        const Plane* host = planeNamed(p, "/host:CPU");
        QVERIFY(host);
        QCOMPARE(host->kind, PlaneKind::Host);
        QCOMPARE(p.hosts().size(), size_t(1));
        QCOMPARE(p.hosts()[0].name, std::string("worker0"));

        // Host threads: python (step > GetNext > Prefetch: 3 levels), two tf_Compute threads
        // (flat), one launch thread per GPU (op > launches and allocations: 2 levels).
        int launchThreads = 0;
        for (const Track& t : p.tracksOf(*host)) {
            QCOMPARE(t.kind, TrackKind::HostThread);
            const std::string_view name = p.str(t.name);
            if (name == "python3") QCOMPARE(t.depthCount, 3u);
            if (name.starts_with("tf_Compute/")) QCOMPARE(t.depthCount, 1u);
            if (name.starts_with("tf_gpu_private_")) {
                QCOMPARE(t.depthCount, 2u);
                ++launchThreads;
            }
        }
        QCOMPARE(launchThreads, gpus);
        QCOMPARE(int(host->trackCount), 3 + gpus);

        int steps = -1;
        for (int g = 0; g < gpus; ++g) {
            const Plane* gpu = planeNamed(p, "/device:GPU:" + std::to_string(g));
            QVERIFY(gpu);
            QCOMPARE(gpu->kind, PlaneKind::Gpu);
            QCOMPARE(gpu->deviceOrdinal, g);
            QCOMPARE(gpu->device.computeCapMajor, 8);
            QCOMPARE(gpu->device.computeCapMinor, 0);
            QCOMPARE(gpu->device.coreCount, int64_t(108));
            QCOMPARE(gpu->device.clockRateKHz, int64_t(1410000));
            QCOMPARE(gpu->device.memoryBytes, uint64_t(40) << 30);
            QCOMPARE(gpu->device.bandwidthBps, uint64_t(1555000000000));
            uint16_t flags = 0;
            std::set<TrackKind> kinds;
            for (const Track& t : p.tracksOf(*gpu)) {
                flags |= t.streamFlags;
                kinds.insert(t.kind);
                QCOMPARE(t.depthCount, 1u); // streams and derived lines never overlap
                if (t.kind == TrackKind::Steps) {
                    if (steps < 0) steps = int(t.eventCount);
                    QCOMPARE(int(t.eventCount), steps); // every GPU runs every step
                }
            }
            QCOMPARE(flags, uint16_t(StreamCompute | StreamMemcpyH2D | StreamMemcpyD2H));
            QCOMPARE(kinds, (std::set<TrackKind>{TrackKind::GpuStream, TrackKind::Steps,
                                                 TrackKind::FrameworkOps}));
        }
        QVERIFY(steps >= 2 && steps <= 20);

        // Every device event on a stream has exactly one host launch, with the right API, and
        // carries its op and step; kernels have valid geometry, copies valid details.
        size_t kernels = 0, copies = 0;
        for (const Track& t : p.tracks()) {
            if (t.kind != TrackKind::GpuStream) continue;
            const bool copyStream = t.streamFlags != StreamCompute;
            for (EventIndex e = t.firstEvent; e < t.firstEvent + t.eventCount; ++e) {
                const std::vector<EventIndex> launches = p.launchesOf(e);
                QCOMPARE(launches.size(), size_t(1));
                QCOMPARE(p.name(launches[0]), copyStream ? std::string_view("cudaMemcpyAsync")
                                                         : std::string_view("cudaLaunchKernel"));
                QVERIFY(p.start(launches[0]) < p.start(e)); // launched before it runs
                QVERIFY(p.frameworkOps().find(e));
                QVERIFY(p.groupId(e) >= 0 && p.groupId(e) < steps);
                if (copyStream) {
                    const MemcpyDetails* m = p.memcpys().find(e);
                    QVERIFY(m && m->valid && m->bytes > 0);
                    ++copies;
                } else {
                    const KernelDetails* k = p.kernelDetails(e);
                    QVERIFY(k && k->valid);
                    QVERIFY(k->registersPerThread > 0 && k->threadsPerBlock() > 0);
                    QVERIFY(k->occupancyPct > 0);
                    QVERIFY(p.duration(e) >= 1000);
                    ++kernels;
                }
            }
        }
        QCOMPARE(copies, size_t(2 * steps * gpus)); // batch in, loss out
        QCOMPARE(p.flows().size(), kernels + copies);

        // Allocations balance within each step: each GPU's allocator ends every step where it
        // started, and never goes negative.
        QVERIFY(p.memoryEvents().size() > 0);
        std::vector<int64_t> lastInUse(gpus, -1);
        size_t allocs = 0, frees = 0;
        for (size_t i = 0; i < p.memoryEvents().size(); ++i) {
            const MemoryEvent m = p.memoryEvent(p.memoryEvents().eventAt(i));
            QCOMPARE(p.memoryEvents().valueAt(i), m.allocator);
            const std::string_view allocator = p.str(m.allocator);
            QVERIFY(allocator.starts_with("GPU_") && allocator.ends_with("_bfc"));
            QVERIFY(m.bytesAllocated >= 0 && m.bytesAllocated <= m.peakBytesInUse);
            QVERIFY(m.fragmentation >= 0 && m.fragmentation < 0.2);
            QVERIFY(m.allocationBytes > 0 && m.allocationBytes % 256 == 0);
            QVERIFY(!p.str(m.shape).empty() && !p.str(m.tfOp).empty());
            (m.deallocation ? frees : allocs)++;
        }
        QCOMPARE(allocs, frees);
    }

    void logDirWithTwoHosts() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        SyntheticOptions o;
        o.events = 10000;
        const std::string logDir = dir.filePath("logs").toStdString();
        QCOMPARE(writeSyntheticLogDir(o, 2, logDir, "2024_06_10_12_00_00"), std::string());
        const QString run = dir.filePath("logs/plugins/profile/2024_06_10_12_00_00/");
        QVERIFY(QFile::exists(run + "worker0.xplane.pb"));
        QVERIFY(QFile::exists(run + "worker1.xplane.pb"));

        // Each file is exactly the in-memory XSpace of its host.
        QFile f(run + "worker1.xplane.pb");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray onDisk = f.readAll();
        const std::vector<uint8_t> expected = generateSyntheticXSpace(o, "worker1");
        QCOMPARE(size_t(onDisk.size()), expected.size());
        QVERIFY(std::equal(expected.begin(), expected.end(),
                           reinterpret_cast<const uint8_t*>(onDisk.constData())));

        const Discovery d = discoverProfiles(logDir);
        QVERIFY2(d.ok(), d.error.c_str());
        QCOMPARE(d.runs.size(), size_t(1));
        QCOMPARE(d.runs[0].name, std::string("2024_06_10_12_00_00"));
        QCOMPARE(d.runs[0].hosts.size(), size_t(2));

        const LoadResult r = loadPath(logDir);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.profile->hosts().size(), size_t(2));
        QCOMPARE(r.profile->planes().size(), size_t(2 * (1 + o.gpus)));
    }

    // 1M events: the launch threads and streams each encode well over the 4 MiB a line keeps in
    // memory, so their events go through the spill file and back. The file must still be the
    // in-memory XSpace byte for byte, and the spill file must leave nothing behind.
    void streamedFileEqualsTheInMemoryXSpace() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        SyntheticOptions o;
        o.events = 1000000;
        const std::string path = dir.filePath("host.xplane.pb").toStdString();
        QCOMPARE(writeSyntheticXSpace(o, "host", path), std::string());
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray onDisk = f.readAll();
        QVERIFY(onDisk.size() > 40 * (1 << 20));
        const std::vector<uint8_t> expected = generateSyntheticXSpace(o, "host");
        QCOMPARE(size_t(onDisk.size()), expected.size());
        QVERIFY(std::equal(expected.begin(), expected.end(),
                           reinterpret_cast<const uint8_t*>(onDisk.constData())));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }

    void streamingIntoAMissingFolderNamesIt() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        SyntheticOptions o;
        o.events = 1000;
        const std::string folder = dir.filePath("missing").toStdString();
        const std::string error = writeSyntheticXSpace(o, "host", folder + "/host.xplane.pb");
        QVERIFY(!error.empty());
        QVERIFY2(error.find(folder) != std::string::npos, error.c_str());
    }

    void unwritableLogDirNamesThePath() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // A regular file where a folder is needed fails even for root.
        QFile blocker(dir.filePath("blocker"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const std::string logDir = dir.filePath("blocker/logs").toStdString();
        SyntheticOptions o;
        o.events = 1000;
        const std::string error = writeSyntheticLogDir(o, 1, logDir, "run");
        QVERIFY(!error.empty());
        QVERIFY2(error.find(dir.filePath("blocker").toStdString()) != std::string::npos,
                 error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSynthetic)
#include "test_synthetic.moc"
