// model/HeapArena, each case in fresh processes (this executable with a flag), since both
// settings act on the process's heap as a whole.
// - useOneHeapArena: threads that allocate together share glibc's one arena, counted with
//   malloc_info; without the setting the same threads make arenas of their own, which shows the
//   count can tell the two apart.
// - returnFreedHeap called by several threads at once, as pod viewer's loads of several hosts
//   call it when they finish together. The race it guards against needs glibc's heap not yet set
//   up, which is the case only where another allocator serves malloc (the sanitizer build in CI);
//   so each try's threads meet at a barrier and call returnFreedHeap together. Unguarded, 3 to 6
//   tries in 100 crashed (ASan, 16 threads), so 200 tries miss it in fewer than 1 run in 400.
#include <QtTest>

#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "model/HeapArena.h"

namespace {

// Whether glibc's malloc serves this process: not under a sanitizer that brings its own allocator.
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) ||        \
    defined(__SANITIZE_HWADDRESS__)
constexpr bool kMallocIsGlibcs = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer) || __has_feature(hwaddress_sanitizer)
constexpr bool kMallocIsGlibcs = false;
#else
constexpr bool kMallocIsGlibcs = true;
#endif
#else
constexpr bool kMallocIsGlibcs = true;
#endif

constexpr const char* kRaceFlag = "--return-heap-race";
constexpr const char* kArenasFlag = "--count-arenas";
constexpr const char* kOneArenaFlag = "--count-arenas-one";

// Prints how many heap arenas glibc has after kThreads threads each allocated while all of them
// were alive.
int countArenas(bool oneArena) {
#ifdef __GLIBC__
    if (oneArena) stepscope::useOneHeapArena();
    constexpr int kThreads = 4;
    std::barrier allocated(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&allocated] {
            void* block = std::malloc(4096);
            static_cast<volatile char*>(block)[0] = 1; // kept: a block never used may be elided
            allocated.arrive_and_wait();
            std::free(block);
        });
    for (std::thread& t : threads) t.join();
    char* text = nullptr;
    size_t size = 0;
    FILE* out = open_memstream(&text, &size);
    if (!out || malloc_info(0, out) != 0) return 2;
    std::fclose(out);
    int heaps = 0;
    for (const char* at = text; (at = std::strstr(at, "<heap nr=")); ++at) ++heaps;
    std::free(text);
    std::printf("%d\n", heaps);
    return 0;
#else
    (void)oneArena;
    return 2;
#endif
}

int raceReturnFreedHeap() {
    constexpr int kThreads = 16;
    std::barrier meet(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&meet] {
            meet.arrive_and_wait();
            stepscope::returnFreedHeap();
        });
    for (std::thread& t : threads) t.join();
    return 0;
}

constexpr const char* kFailed = "failed: ";

// The standard output of this executable run with `flag`, or kFailed and its standard error.
QByteArray runSelf(const char* flag) {
    QProcess child;
    // The arena limit as the child sets it, not as the environment may (glibc reads both).
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("MALLOC_ARENA_MAX"));
    environment.remove(QStringLiteral("GLIBC_TUNABLES"));
    child.setProcessEnvironment(environment);
    child.start(QCoreApplication::applicationFilePath(), {QString::fromLatin1(flag)});
    if (!child.waitForFinished(30000) || child.exitStatus() != QProcess::NormalExit ||
        child.exitCode() != 0)
        return kFailed + child.readAllStandardError();
    return child.readAllStandardOutput().trimmed();
}

} // namespace

class TestHeapArena : public QObject {
    Q_OBJECT

private slots:
    void threadsShareOneArena() {
        if (!kMallocIsGlibcs)
            QSKIP("glibc's malloc does not serve this build (a sanitizer's allocator does)");
        const QByteArray own = runSelf(kArenasFlag);
        QVERIFY2(own.toInt() > 1, own.constData()); // the count sees arenas of their own
        QCOMPARE(runSelf(kOneArenaFlag), QByteArray("1"));
    }

    void threadsReturningFreedHeapTogetherExitCleanly() {
        for (int attempt = 0; attempt < 200; ++attempt) {
            const QByteArray out = runSelf(kRaceFlag);
            QVERIFY2(!out.startsWith(kFailed), qPrintable(QString::number(attempt) + ": " + out));
        }
    }
};

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], kRaceFlag) == 0) return raceReturnFreedHeap();
    if (argc == 2 && std::strcmp(argv[1], kArenasFlag) == 0) return countArenas(false);
    if (argc == 2 && std::strcmp(argv[1], kOneArenaFlag) == 0) return countArenas(true);
    QCoreApplication app(argc, argv);
    TestHeapArena suite;
    return QTest::qExec(&suite, argc, argv);
}

#include "test_heap_arena.moc"
