// The columnar model's invariants: grouping by track, depth assignment, time shifting, window
// queries at the edges, hot stats and flows, on profiles built directly with ProfileBuilder.
#include <QtTest>

#include "model/ProfileBuilder.h"

using namespace stepscope;

namespace {
constexpr int64_t us = 1000000; // picoseconds per microsecond

StatValue strStat(ProfileBuilder& b, const char* key, const char* value) {
    return {b.intern(key), StatType::Str, b.intern(value)};
}
StatValue intStat(ProfileBuilder& b, const char* key, int64_t v, StatType t = StatType::Int64) {
    return {b.intern(key), t, uint64_t(v)};
}

// For the flow tests: a host with a CPU and a GPU plane and a launch and a kernel name on them;
// event() adds an event of 1 us with a correlation id.
struct LaunchHost {
    LaunchHost(ProfileBuilder& builder, const char* name)
        : b(builder) {
        const uint32_t host = b.addHost(name, "");
        cpu = b.addPlane(host, 0, "/host:CPU");
        gpu = b.addPlane(host, 1, "/device:GPU:0");
        launch = b.addMetadata(cpu, 1, "cudaLaunchKernel", "");
        kernel = b.addMetadata(gpu, 1, "gemm", "");
    }
    void event(uint32_t track, int64_t atUs, uint32_t meta, int64_t corr) {
        b.addEvent(track, atUs * us, 1 * us, meta);
        b.addEventStat(intStat(b, "correlation_id", corr, StatType::Uint64));
    }
    ProfileBuilder& b;
    uint32_t cpu = 0, gpu = 0, launch = 0, kernel = 0;
};
} // namespace

class TestProfileBuilder : public QObject {
    Q_OBJECT
private slots:
    void nestingGetsDepthAndOrder() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t plane = b.addPlane(host, 0, "/host:CPU");
        const uint32_t t = b.addTrack(plane, 7, "python");
        const uint32_t m = b.addMetadata(plane, 1, "op", "");
        // Added out of order: child before parent, a later sibling, a partial overlap.
        b.setTimeBase(0);
        b.addEvent(t, 2 * us, 3 * us, m);  // child [2,5)
        b.addEvent(t, 0, 10 * us, m);      // parent [0,10)
        b.addEvent(t, 6 * us, 2 * us, m);  // child [6,8)
        b.addEvent(t, 9 * us, 3 * us, m);  // overlaps the parent's end without nesting [9,12)
        b.addEvent(t, 20 * us, 1 * us, m); // top level again
        auto p = b.finish();
        QVERIFY(p);
        const Track& track = p->tracks()[0];
        QCOMPARE(track.eventCount, 5u);
        QCOMPARE(track.depthCount, 2u);
        const EventRange d0 = p->eventsAt(0, 0), d1 = p->eventsAt(0, 1);
        QCOMPARE(d0.size(), 2u);
        QCOMPARE(d1.size(), 3u);
        QCOMPARE(p->start(d0.begin), 0);
        QCOMPARE(p->start(d0.begin + 1), 20 * us);
        QCOMPARE(p->start(d1.begin), 2 * us);
        QCOMPARE(p->start(d1.begin + 1), 6 * us);
        QCOMPARE(p->start(d1.begin + 2), 9 * us);
        QCOMPARE(p->depthOf(d1.begin + 2), 1u);
        QCOMPARE(p->trackOf(d1.begin + 2), 0u);
        QCOMPARE(track.minStartPs, 0);
        QCOMPARE(track.maxEndPs, 21 * us);
        QCOMPARE(p->durationPs(), 21 * us);
        // No overlap within any (track, depth).
        for (uint32_t d = 0; d < track.depthCount; ++d) {
            const EventRange r = p->eventsAt(0, d);
            for (EventIndex e = r.begin + 1; e < r.end; ++e) QVERIFY(p->start(e) >= p->end(e - 1));
        }
    }

    // Five nested spans, added innermost first, and an event inside them all: six levels, each
    // holding its events by start. The empty track beside them has no depth and no extent.
    void deepNestingGetsADepthPerLevel() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t plane = b.addPlane(host, 0, "/host:CPU");
        const uint32_t empty = b.addTrack(plane, 1, "idle");
        const uint32_t t = b.addTrack(plane, 2, "python");
        const uint32_t m = b.addMetadata(plane, 1, "op", "");
        b.setTimeBase(0);
        for (int64_t level = 4; level >= 0; --level)
            b.addEvent(t, level * us, (100 - 2 * level) * us, m); // [level, 100 - level)
        b.addEvent(t, 200 * us, 1 * us, m);
        b.addEvent(t, 50 * us, 1 * us, m); // inside all five: depth 5
        auto p = b.finish();
        QVERIFY(p);
        QCOMPARE(p->tracks()[empty].eventCount, 0u);
        QCOMPARE(p->tracks()[empty].depthCount, 0u);
        QCOMPARE(p->tracks()[empty].minStartPs, 0);
        QCOMPARE(p->tracks()[empty].maxEndPs, 0);
        const Track& track = p->tracks()[t];
        QCOMPARE(track.eventCount, 7u);
        QCOMPARE(track.depthCount, 6u);
        const std::vector<uint32_t> sizes = {2, 1, 1, 1, 1, 1};
        const std::vector<int64_t> firstStarts = {0, 1 * us, 2 * us, 3 * us, 4 * us, 50 * us};
        for (uint32_t d = 0; d < 6; ++d) {
            const EventRange r = p->eventsAt(t, d);
            QCOMPARE(r.size(), sizes[d]);
            QCOMPARE(p->start(r.begin), firstStarts[d]);
            QCOMPARE(p->depthOf(r.begin), d);
        }
        QCOMPARE(p->start(p->eventsAt(t, 0).begin + 1), 200 * us);
        QCOMPARE(track.minStartPs, 0);
        QCOMPARE(track.maxEndPs, 201 * us);
    }

    void timeIsShiftedToTheFirstEvent() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t plane = b.addPlane(host, 0, "/host:CPU");
        const uint32_t t = b.addTrack(plane, 1, "main");
        const uint32_t m = b.addMetadata(plane, 1, "x", "");
        b.setTimeBase(1'000'000'000);
        b.addEvent(t, 5'000'500, 100, m); // 5000.5 ns after the base
        auto p = b.finish();
        QCOMPARE(p->startNs(), int64_t(1'000'000'000 + 5000));
        QCOMPARE(p->start(0), int64_t(500));
        QCOMPARE(p->durationPs(), int64_t(600));
    }

    void tracksAddedOutOfPlaneOrderAreGrouped() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t cpu = b.addPlane(host, 0, "/host:CPU");
        const uint32_t gpu = b.addPlane(host, 1, "/device:GPU:0");
        const uint32_t t0 = b.addTrack(cpu, 1, "main");
        const uint32_t t1 = b.addTrack(gpu, 7, "Stream #7(Compute)");
        const uint32_t t2 = b.addTrack(cpu, 2, "worker");
        const uint32_t m = b.addMetadata(cpu, 1, "x", "");
        b.setTimeBase(0);
        b.addEvent(t2, 3, 1, m);
        b.addEvent(t1, 2, 1, m);
        b.addEvent(t0, 1, 1, m);
        auto p = b.finish();
        QCOMPARE(p->planes()[0].trackCount, 2u);
        QCOMPARE(p->planes()[1].trackCount, 1u);
        QCOMPARE(p->str(p->tracks()[0].name), std::string_view("main"));
        QCOMPARE(p->str(p->tracks()[1].name), std::string_view("worker"));
        QCOMPARE(p->str(p->tracks()[2].name), std::string_view("Stream #7(Compute)"));
        QCOMPARE(p->tracks()[2].kind, TrackKind::GpuStream);
        QCOMPARE(p->tracks()[2].streamFlags, uint16_t(StreamCompute));
        // Time shifts in whole nanoseconds only, so these picosecond starts stay as they are.
        QCOMPARE(p->start(p->tracks()[0].firstEvent), int64_t(1));
        QCOMPARE(p->start(p->tracks()[1].firstEvent), int64_t(3));
        QCOMPARE(p->start(p->tracks()[2].firstEvent), int64_t(2));
    }

    // 700,002 events dealt to three tracks in turn and then a run of each track's own, or the
    // same events track after track: the rows arrive ungrouped, or grouped, across the three
    // blocks of the grouping pass, which cuts them into one part per thread. On every thread count
    // each track holds exactly its own events, in time order.
    void interleavedTracksGroupTheSameOnAnyThreadCount() {
        constexpr uint32_t kDealt = 600000, kRun = 33334;
        for (const bool dealt : {true, false})
            for (unsigned threads : {1u, 2u, 3u, 8u}) {
                ProfileBuilder b;
                const uint32_t host = b.addHost("h", "");
                const uint32_t plane = b.addPlane(host, 0, "/host:CPU");
                const uint32_t m = b.addMetadata(plane, 1, "x", "");
                uint32_t tracks[3];
                for (uint32_t t = 0; t < 3; ++t) tracks[t] = b.addTrack(plane, t + 1, "thread");
                b.setTimeBase(0);
                // Track t's k-th event starts at 10 * k + t ps and lasts 1 ps.
                std::vector<int64_t> next(3, 0);
                const auto add = [&](uint32_t t) {
                    b.addEvent(tracks[t], 10 * next[t]++ + t, 1, m);
                };
                if (dealt) {
                    for (uint32_t i = 0; i < kDealt; ++i) add(i % 3);
                    for (uint32_t t = 0; t < 3; ++t)
                        for (uint32_t i = 0; i < kRun; ++i) add(t);
                } else {
                    for (uint32_t t = 0; t < 3; ++t)
                        for (uint32_t i = 0; i < kDealt / 3 + kRun; ++i) add(t);
                }
                auto p = b.finish(nullptr, threads);
                QVERIFY(p);
                for (uint32_t t = 0; t < 3; ++t) {
                    const Track& tr = p->tracks()[tracks[t]];
                    QCOMPARE(tr.eventCount, kDealt / 3 + kRun);
                    for (uint32_t k = 0; k < tr.eventCount; ++k)
                        if (p->start(tr.firstEvent + k) != 10 * int64_t(k) + t)
                            QFAIL(qPrintable(
                                QString("track %1 event %2 on %3 threads (%4) starts at %5")
                                    .arg(t)
                                    .arg(k)
                                    .arg(threads)
                                    .arg(dealt ? "dealt" : "grouped")
                                    .arg(p->start(tr.firstEvent + k))));
                }
            }
    }

    void windowEdges() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t plane = b.addPlane(host, 0, "/host:CPU");
        const uint32_t t = b.addTrack(plane, 1, "main");
        const uint32_t m = b.addMetadata(plane, 1, "x", "");
        b.setTimeBase(0);
        b.addEvent(t, 0, 10, m);  // [0,10)
        b.addEvent(t, 10, 0, m);  // instant at 10
        b.addEvent(t, 10, 10, m); // [10,20)
        b.addEvent(t, 30, 5, m);  // [30,35)
        auto p = b.finish();
        QCOMPARE(p->tracks()[0].depthCount, 2u); // the instant nests in [10,20)
        const EventRange top = p->eventsAt(0, 0);
        QCOMPARE(top.size(), 3u);
        QCOMPARE(p->eventsInWindow(0, 0, 10, 30).size(), 1u); // [10,20) only: [0,10) ends at 10
        QCOMPARE(p->eventsInWindow(0, 0, 9, 11).size(), 2u);
        QCOMPARE(p->eventsInWindow(0, 0, 20, 30).size(), 0u);
        QCOMPARE(p->eventsInWindow(0, 0, 34, 100).size(), 1u);
        QCOMPARE(p->eventsInWindow(0, 0, 35, 100).size(), 0u);
        QCOMPARE(p->eventsInWindow(0, 1, 10, 10).size(), 1u); // the instant, in a 0-wide window
        QCOMPARE(p->eventsInWindow(0, 5, 0, 100).size(), 0u); // no such depth
        QCOMPARE(p->eventsByName("x").size(), 4u);
        QCOMPARE(p->eventsByName("nope").size(), 0u);
    }

    void hotStatsAndFlows() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t cpu = b.addPlane(host, 0, "/host:CPU");
        const uint32_t gpu = b.addPlane(host, 1, "/device:GPU:0");
        const uint32_t thread = b.addTrack(cpu, 1, "main");
        const uint32_t stream = b.addTrack(gpu, 7, "Stream #7(Compute)");
        const uint32_t copies = b.addTrack(gpu, 8, "Stream #8(MemcpyH2D)");
        const uint32_t ops = b.addTrack(gpu, -559038734, "TensorFlow Ops"); // derived id
        const uint32_t launch = b.addMetadata(cpu, 1, "cudaLaunchKernel", "");
        const uint32_t alloc = b.addMetadata(cpu, 2, "MemoryAllocation", "");
        const uint32_t kernel = b.addMetadata(gpu, 1, "volta_h884gemm", "");
        const uint32_t copy = b.addMetadata(gpu, 2, "MemcpyH2D", "");
        const uint32_t op = b.addMetadata(gpu, 3, "dense/MatMul:MatMul", "");
        // kernel_details on the metadata: events inherit it.
        b.addMetadataStat(kernel, strStat(b, "kernel_details",
                                          "regs:64 static_shared:1024 "
                                          "dynamic_shared:2048 grid:4,2,1 "
                                          "block:128,1,1 occ_pct:37.5"));
        b.setTimeBase(0);
        b.addEvent(thread, 0, 5 * us, launch);
        b.addEventStat(intStat(b, "correlation_id", 41, StatType::Uint64));
        b.addEventStat(intStat(b, "group_id", 3));
        b.addEvent(thread, 6 * us, 1 * us, alloc);
        b.addEventStat(strStat(b, "allocator_name", "GPU_0_bfc"));
        b.addEventStat(intStat(b, "bytes_allocated", 4096));
        b.addEventStat(
            {b.intern("fragmentation"), StatType::Double, std::bit_cast<uint64_t>(0.25)});
        b.addEvent(stream, 10 * us, 20 * us, kernel);
        b.addEventStat(intStat(b, "correlation_id", 41, StatType::Uint64));
        b.addEventStat(strStat(b, "level 0", "dense/MatMul:MatMul"));
        b.addEvent(copies, 8 * us, 2 * us, copy);
        b.addEventStat(strStat(b, "memcpy_details", "size:1048576 dest:0 async:1"));
        b.addEvent(ops, 10 * us, 20 * us, op);
        b.addEventStat(intStat(b, "correlation_id", 41, StatType::Uint64)); // derived: no flow
        auto p = b.finish();

        const EventIndex launchEvent = p->tracks()[0].firstEvent;
        const EventIndex kernelEvent = p->tracks()[1].firstEvent;
        QCOMPARE(p->groupId(launchEvent), 3);
        QCOMPARE(p->groupId(kernelEvent), -1);
        QCOMPARE(p->flows().size(), size_t(1));
        QCOMPARE(p->flows()[0].launch, launchEvent);
        QCOMPARE(p->flows()[0].target, kernelEvent);
        QCOMPARE(p->flowsFrom(launchEvent).size(), size_t(1));
        QCOMPARE(p->launchesOf(kernelEvent), std::vector<EventIndex>{launchEvent});

        const KernelDetails* k = p->kernelDetails(kernelEvent);
        QVERIFY(k);
        QCOMPARE(k->registersPerThread, 64u);
        QCOMPARE(k->sharedBytes(), 3072u);
        QCOMPARE(k->grid[0], 4u);
        QCOMPARE(k->grid[1], 2u);
        QCOMPARE(k->block[0], 128u);
        QCOMPARE(k->occupancyPct, 37.5);
        QCOMPARE(p->kernels().size(), size_t(1));

        const StringId* tfOp = p->frameworkOps().find(kernelEvent);
        QVERIFY(tfOp);
        QCOMPARE(p->str(*tfOp), std::string_view("dense/MatMul:MatMul"));

        QCOMPARE(p->memcpys().size(), size_t(1));
        QCOMPARE(p->memcpys().valueAt(0).bytes, uint64_t(1048576));
        QVERIFY(p->memcpys().valueAt(0).async);

        QCOMPARE(p->memoryEvents().size(), size_t(1));
        QCOMPARE(p->str(p->memoryEvents().valueAt(0)), std::string_view("GPU_0_bfc"));
        const MemoryEvent mem = p->memoryEvent(p->memoryEvents().eventAt(0));
        QCOMPARE(p->str(mem.allocator), std::string_view("GPU_0_bfc"));
        QCOMPARE(mem.bytesAllocated, int64_t(4096));
        QCOMPARE(mem.fragmentation, 0.25);
        QVERIFY(!mem.deallocation);

        const auto found = p->findStat(kernelEvent, "kernel_details");
        QVERIFY(found.has_value());
        QVERIFY(p->str(found->asString()).starts_with("regs:64"));
        // At least the four per-event columns, the step column and the side tables.
        QVERIFY(p->memoryBytes() >= p->eventCount() * (8 + 8 + 4 + 4 + 4) +
                                        p->correlationIds().memoryBytes() +
                                        p->kernels().memoryBytes());
    }

    // Kernels that run in another order than their launches, one id launched twice, a kernel
    // with no launch, and a second host reusing an id: each kernel joins the launches of its own
    // host with its id, and both flow orders come out as worked out here.
    void flowsJoinKernelsInAnyOrder() {
        ProfileBuilder b;
        LaunchHost a(b, "a"), hb(b, "b");
        const uint32_t threadA = b.addTrack(a.cpu, 1, "main");
        const uint32_t streamA = b.addTrack(a.gpu, 7, "Stream #7(Compute)");
        const uint32_t threadB = b.addTrack(hb.cpu, 1, "main");
        const uint32_t streamB = b.addTrack(hb.gpu, 7, "Stream #7(Compute)");
        b.setTimeBase(0);
        for (const auto& [at, corr] : {std::pair{0, 5}, {10, 6}, {20, 6}, {30, 9}})
            a.event(threadA, at, a.launch, corr);
        for (const auto& [at, corr] : {std::pair{40, 9}, {50, 6}, {60, 5}, {70, 7}})
            a.event(streamA, at, a.kernel, corr);
        hb.event(threadB, 0, hb.launch, 5);
        hb.event(streamB, 10, hb.kernel, 5);
        hb.event(streamB, 20, hb.kernel, 5);
        auto p = b.finish();

        // Events in track order, each track in time order.
        auto at = [&](uint32_t track, uint32_t i) { return p->tracks()[track].firstEvent + i; };
        const EventIndex l5 = at(threadA, 0), l6 = at(threadA, 1), l6again = at(threadA, 2),
                         l9 = at(threadA, 3);
        const EventIndex k9 = at(streamA, 0), k6 = at(streamA, 1), k5 = at(streamA, 2),
                         k7 = at(streamA, 3);
        const EventIndex lb = at(threadB, 0), kb1 = at(streamB, 0), kb2 = at(streamB, 1);
        const std::vector<std::pair<EventIndex, EventIndex>> byLaunch{
            {l5, k5}, {l6, k6}, {l6again, k6}, {l9, k9}, {lb, kb1}, {lb, kb2}};
        std::vector<std::pair<EventIndex, EventIndex>> flows;
        for (const Flow& f : p->flows()) flows.push_back({f.launch, f.target});
        QCOMPARE(flows, byLaunch);
        QCOMPARE(p->launchesOf(k6), (std::vector<EventIndex>{l6, l6again}));
        QCOMPARE(p->launchesOf(k5), std::vector<EventIndex>{l5});
        QCOMPARE(p->launchesOf(k9), std::vector<EventIndex>{l9});
        QCOMPARE(p->launchesOf(k7), std::vector<EventIndex>{});
        QCOMPARE(p->launchesOf(kb2), std::vector<EventIndex>{lb});
        QCOMPARE(p->flowsFrom(lb).size(), size_t(2));
        QCOMPARE(p->flowsFrom(l9).size(), size_t(1));
    }

    // 200,000 launches in id order and their kernels on two streams, the even ids in order and
    // the odd ones in reverse: 400,000 correlated events, so the join runs in two blocks, the
    // launches sort in several parts, and every odd kernel searches backwards.
    void flowsJoinAcrossBlocks() {
        constexpr uint32_t kLaunches = 200000;
        for (unsigned threads : {1u, 2u}) {
            ProfileBuilder b;
            LaunchHost h(b, "h");
            const uint32_t thread = b.addTrack(h.cpu, 1, "main");
            const uint32_t even = b.addTrack(h.gpu, 7, "Stream #7(Compute)");
            const uint32_t odd = b.addTrack(h.gpu, 8, "Stream #8(Compute)");
            b.setTimeBase(0);
            for (uint32_t i = 0; i < kLaunches; ++i) h.event(thread, 2 * i, h.launch, i + 1);
            for (uint32_t i = 0; i < kLaunches / 2; ++i) {
                h.event(even, 2 * i, h.kernel, 2 * i + 2);            // ids 2, 4, ...
                h.event(odd, 2 * i, h.kernel, kLaunches - 2 * i - 1); // ids ..., 3, 1
            }
            auto p = b.finish(nullptr, threads);
            QVERIFY(p);

            // Launch i has id i + 1; even kernel k has id 2k + 2, odd kernel k id 2e5 - 2k - 1.
            const EventIndex launches = p->tracks()[thread].firstEvent;
            const EventIndex evens = p->tracks()[even].firstEvent;
            const EventIndex odds = p->tracks()[odd].firstEvent;
            auto kernelOf = [&](uint32_t id) {
                return id % 2 == 0 ? evens + (id - 2) / 2 : odds + (kLaunches - 1 - id) / 2;
            };
            QCOMPARE(p->flows().size(), size_t(kLaunches));
            for (uint32_t i = 0; i < kLaunches; ++i) {
                const Flow f = p->flows()[i];
                if (f.launch != launches + i || f.target != kernelOf(i + 1))
                    QFAIL(qPrintable(QString("flow %1 on %2 threads: %3 -> %4")
                                         .arg(i)
                                         .arg(threads)
                                         .arg(f.launch)
                                         .arg(f.target)));
            }
            for (uint32_t id = 1; id <= kLaunches; id += 9999)
                QCOMPARE(p->launchesOf(kernelOf(id)), std::vector<EventIndex>{launches + id - 1});
        }
    }

    void detailSpellings() {
        const KernelDetails tf2020 =
            KernelDetails::parse("regs:16 shm:48 grid:160,1,1 block:1024,1,1");
        QVERIFY(tf2020.valid);
        QCOMPARE(tf2020.registersPerThread, 16u);
        QCOMPARE(tf2020.sharedBytes(), 48u);
        QCOMPARE(tf2020.grid[0], 160u);
        QCOMPARE(tf2020.block[0], 1024u);
        QCOMPARE(tf2020.occupancyPct, -1.0);
        const KernelDetails rocm = KernelDetails::parse(
            " grid:8,32,1 block:256,1,1 private_mem:0 group_mem:12800 occ_pct:0");
        QVERIFY(rocm.valid);
        QCOMPARE(rocm.sharedBytes(), 12800u);
        QCOMPARE(rocm.grid[1], 32u);
        QCOMPARE(rocm.occupancyPct, 0.0);
        QVERIFY(!KernelDetails::parse("regs:17179869185 shm:7").valid); // garbage TF wrote
        QVERIFY(!KernelDetails::parse("").valid);
        const MemcpyDetails m = MemcpyDetails::parse("kind:Unknown size:0 dest:512 async:1");
        QVERIFY(m.valid);
        QCOMPARE(m.destination, int64_t(512));
        QCOMPARE(copyKindFromName("MemcpyD2H"), CopyKind::DeviceToHost);
        QCOMPARE(copyKindFromName("cudaMemcpyHtoDAsync"), CopyKind::HostToDevice);
        QCOMPARE(copyKindFromName("volta_sgemm"), CopyKind::Unknown);
    }

    void classification() {
        QCOMPARE(classifyPlane("/device:GPU:3").deviceOrdinal, 3);
        QCOMPARE(classifyPlane("/device:CUSTOM:Megascale Trace").kind, PlaneKind::Custom);
        QCOMPARE(classifyPlane("/host:metadata").kind, PlaneKind::Other);
        const TrackClass multi = classifyTrack(PlaneKind::Gpu, "Stream #7(Compute,MemcpyD2D)", 7);
        QCOMPARE(multi.streamId, int64_t(7));
        QCOMPARE(multi.streamFlags, uint16_t(StreamCompute | StreamMemcpyD2D));
        QVERIFY(!multi.derived);
        QVERIFY(isDeviceOpLine(PlaneKind::Gpu, multi, "Stream #7(Compute,MemcpyD2D)"));
        QCOMPARE(classifyTrack(PlaneKind::Gpu, "Stream #2", 2).streamFlags, uint16_t(0));
        QCOMPARE(classifyTrack(PlaneKind::Gpu, "Stream #2", 2).kind, TrackKind::GpuStream);
        const TrackClass ops = classifyTrack(PlaneKind::Gpu, "Framework Ops", -559038734);
        QCOMPARE(ops.kind, TrackKind::FrameworkOps);
        QVERIFY(ops.derived);
        QVERIFY(!isDeviceOpLine(PlaneKind::Gpu, ops, "Framework Ops"));
        QCOMPARE(classifyTrack(PlaneKind::Host, "Steps", 1).kind, TrackKind::HostThread);
        // On a TPU the op lines are the work, whatever their id; other lines are not.
        const TrackClass tpuOps = classifyTrack(PlaneKind::Tpu, "XLA Ops", 2);
        QCOMPARE(tpuOps.kind, TrackKind::XlaOps);
        QVERIFY(isDeviceOpLine(PlaneKind::Tpu, tpuOps, "XLA Ops"));
        QVERIFY(!isDeviceOpLine(PlaneKind::Tpu, classifyTrack(PlaneKind::Tpu, "Async XLA Ops", 3),
                                "Async XLA Ops"));
    }

    void statEncodingRoundTrips() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t plane = b.addPlane(host, 0, "/host:CPU");
        const uint32_t t = b.addTrack(plane, 1, "main");
        const uint32_t m = b.addMetadata(plane, 1, "x", "");
        const std::vector<StatValue> stats = {
            {b.intern("i"), StatType::Int64, uint64_t(int64_t(-1))},
            {b.intern("min"), StatType::Int64, uint64_t(INT64_MIN)},
            {b.intern("max"), StatType::Int64, uint64_t(INT64_MAX)},
            {b.intern("u"), StatType::Uint64, UINT64_MAX},
            {b.intern("d"), StatType::Double, std::bit_cast<uint64_t>(-0.125)},
            {b.intern("s"), StatType::Str, b.intern("text")},
            {b.intern("b"), StatType::Bytes, b.intern(std::string("\0\1", 2))},
            {b.intern("r"), StatType::Ref, b.intern("referenced")},
            {b.intern("zero"), StatType::Int64, 0},
        };
        b.setTimeBase(0);
        b.addEvent(t, 0, 1, m); // no stats
        b.addEvent(t, 2, 1, m);
        for (const StatValue& s : stats) b.addEventStat(s);
        b.addEvent(t, 4, 1, m); // dropped with its stats
        b.addEventStat(stats[0]);
        b.dropLastEvent();
        b.addEvent(t, 6, 1, m);
        b.addEventStat(stats[5]);
        auto p = b.finish();
        QCOMPARE(p->eventCount(), size_t(3));
        QVERIFY(p->eventStats(0).empty());
        std::vector<StatValue> read;
        for (const StatValue& s : p->eventStats(1)) read.push_back(s);
        QCOMPARE(read.size(), stats.size());
        for (size_t i = 0; i < stats.size(); ++i) {
            QCOMPARE(read[i].key, stats[i].key);
            QCOMPARE(read[i].type, stats[i].type);
            QCOMPARE(read[i].rawBits(), stats[i].rawBits());
        }
        QCOMPARE(p->eventStats(2).size(), size_t(1));
        QCOMPARE(p->str((*p->eventStats(2).begin()).asString()), std::string_view("text"));
        QCOMPARE(read[4].format(p->strings()), std::string("-0.125"));
        QCOMPARE(read[6].format(p->strings()), std::string("<2 bytes>"));
    }

    // StatValue is packed, so `raw` sits at odd addresses inside arrays and iterators. Reading
    // it through a uint64_t reference is undefined (UBSan: "reference binding to misaligned
    // address"); this places values at every offset of an 8-aligned buffer and reads them back.
    void statValuesReadAtMisalignedAddresses() {
        StringPool pool;
        const StringId text = pool.intern("text");
        const StatValue values[] = {
            {1, StatType::Double, 0xBFC0000000000000ull}, // -0.125
            {2, StatType::Uint64, 0xFFFFFFFFFFFFFFFFull},
            {3, StatType::Int64, 0xFFFFFFFFFFFFFFFBull}, // -5
            {4, StatType::Str, text},
        };
        alignas(8) unsigned char buffer[8 + sizeof(StatValue)];
        for (size_t offset = 0; offset < 8; ++offset) {
            std::memcpy(buffer + offset, &values[0], sizeof(StatValue));
            const auto& d = *reinterpret_cast<const StatValue*>(buffer + offset);
            QCOMPARE(d.asDouble(), -0.125);
            QCOMPARE(d.asInt(), int64_t(0));
            QCOMPARE(d.format(pool), std::string("-0.125"));
            std::memcpy(buffer + offset, &values[1], sizeof(StatValue));
            const auto& u = *reinterpret_cast<const StatValue*>(buffer + offset);
            QCOMPARE(u.rawBits(), uint64_t(18446744073709551615ull));
            QCOMPARE(u.asDouble(), 18446744073709551616.0);
            QCOMPARE(u.format(pool), std::string("18446744073709551615"));
            std::memcpy(buffer + offset, &values[2], sizeof(StatValue));
            const auto& i = *reinterpret_cast<const StatValue*>(buffer + offset);
            QCOMPARE(i.asInt(), int64_t(-5));
            QCOMPARE(i.asDouble(), -5.0);
            QCOMPARE(i.format(pool), std::string("-5"));
            std::memcpy(buffer + offset, &values[3], sizeof(StatValue));
            const auto& t = *reinterpret_cast<const StatValue*>(buffer + offset);
            QCOMPARE(t.asString(), text);
            QCOMPARE(t.format(pool), std::string("text"));
        }
    }

    void stringPool() {
        StringPool pool;
        QCOMPARE(pool.intern(""), 0u);
        std::vector<StringId> ids;
        for (int i = 0; i < 100000; ++i) ids.push_back(pool.intern("s" + std::to_string(i)));
        for (int i = 0; i < 100000; ++i) {
            QCOMPARE(pool.intern("s" + std::to_string(i)), ids[i]);
            QCOMPARE(pool.get(ids[i]), std::string_view("s" + std::to_string(i)));
        }
        QCOMPARE(pool.find("missing"), StringPool::kNotFound);
        QCOMPARE(pool.size(), size_t(100001));
    }

    // The spread between events, not only each event, must fit: two hosts (or importers that do
    // not check it themselves) can each be in range and still be 2^63 ps apart.
    void timesTooFarApartAreRejected() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", {});
        const uint32_t plane = b.addPlane(host, 1, "/host:CPU");
        const uint32_t track = b.addTrack(plane, 1, "t");
        const uint32_t meta = b.addMetadata(plane, 1, "op", {});
        b.addEvent(track, -9'000'000'000'000'000'000, 1, meta);
        b.addEvent(track, 9'000'000'000'000'000'000, 1, meta);
        QVERIFY(b.finish() == nullptr);
        QVERIFY2(b.error().find("too far apart") != std::string::npos, b.error().c_str());
    }
};

QTEST_GUILESS_MAIN(TestProfileBuilder)
#include "test_profile_builder.moc"
