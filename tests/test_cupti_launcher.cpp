// Local capture's launcher and injection library on a machine without a GPU: every failure is a
// plain message (missing library, no driver, program not found, exiting at once without
// records); a program that crashes or is stopped keeps what it recorded (shell scripts stand in
// for CUDA programs and drop a prepared record file where the injection library would write
// it); the injection library loads and initialises cleanly where no driver exists.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#ifdef STEPSCOPE_FAKE_CUPTI
#include <cupti.h>
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>

#include "capture/CuptiConverter.h"
#include "capture/ProgramLauncher.h"
#include "capture/RecordFile.h"
#include "model/LogDir.h"
#include "model/ProfileLoader.h"
#include "tests/fixtures/FileSizeLimit.h"

using namespace stepscope;
using namespace stepscope::capture;

// A process forked from this multi-threaded test and leaving through exit() holds copies of its
// parent's heap that threads it does not have would have freed (LeakSanitizer says so: "False
// leaks are possible"); such a child turns leak checking off here. LeakSanitizer calls this
// function at exit when the sanitizer build links it; other builds never call it.
namespace {
std::atomic<bool> forkedChild{false};
}
extern "C" int __lsan_is_turned_off();
extern "C" int __lsan_is_turned_off() {
    return forkedChild ? 1 : 0;
}

class TestCuptiLauncher : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString records_; // a record file of process 42 on "gpu-box" with one kernel

    LaunchOptions options(const QStringList& argv, const QString& sub) const {
        LaunchOptions o;
        for (const QString& a : argv) o.argv.push_back(a.toStdString());
        o.logDir = dir_.filePath(sub).toStdString();
        o.runName = "run";
        // Any readable file stands for the library where no program loads it.
        o.injectionLibrary = records_.toStdString();
        o.requireDriver = false;
        return o;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        records_ = dir_.filePath("prepared.rec");
        RecordFileWriter w(records_.toStdString());
        w.add(ProcessRecord{42, "gpu-box", "train", 1'000'000'000, 100});
        KernelRecord k;
        k.startNs = 200, k.endNs = 300, k.streamId = 7, k.name = "kernel";
        w.add(k);
        QVERIFY(w.flush());
    }

    void missingInjectionLibrary() {
        LaunchOptions o = options({"true"}, "missing");
        o.injectionLibrary = dir_.filePath("nope.so").toStdString();
        const LaunchResult r = launchAndCapture(o, Progress());
        QVERIFY(
            QString::fromStdString(r.error).startsWith("the CUPTI injection library is missing"));
        o.injectionLibrary.clear();
        QVERIFY(
            QString::fromStdString(launchAndCapture(o, Progress()).error).contains("not built"));
    }

    void noDriverIsSaidPlainly() {
        if (cudaDriverProblem().empty()) QSKIP("this machine has a CUDA driver");
        LaunchOptions o = options({"true"}, "nodriver");
        o.requireDriver = true;
        const LaunchResult r = launchAndCapture(o, Progress());
        QVERIFY2(QString::fromStdString(r.error).startsWith("no CUDA driver on this machine"),
                 r.error.c_str());
        QVERIFY(!QFileInfo::exists(dir_.filePath("nodriver/plugins")));
    }

    void programNotFound() {
        const LaunchResult r =
            launchAndCapture(options({"no-such-program-stepscope"}, "notfound"), Progress());
        QCOMPARE(r.error, std::string("program not found: no-such-program-stepscope"));
    }

    void programExitingAtOnceWithoutRecords() {
        LaunchResult r = launchAndCapture(options({"true"}, "atonce"), Progress());
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(QString::fromStdString(r.error).startsWith("true recorded nothing"),
                 r.error.c_str());
        r = launchAndCapture(options({"sh", "-c", "exit 3"}, "atonce3"), Progress());
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.notes, std::vector<std::string>{"sh exited with code 3"});
        QVERIFY(!r.ok());
        // No run folder and no record folder are left behind.
        QVERIFY(QDir(dir_.filePath("atonce3/plugins/profile"))
                    .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)
                    .isEmpty());
    }

    void crashKeepsWhatWasRecorded() {
        const QString envOut = dir_.filePath("env.txt");
        const QString script =
            QString("cp '%1' \"$STEPSCOPE_CUPTI_DIR/42.rec\"; "
                    "echo \"$CUDA_INJECTION64_PATH|$NVTX_INJECTION64_PATH|$STEPSCOPE_CUPTI_KINDS|"
                    "$EXTRA\" "
                    "> '%2'; kill -SEGV $$")
                .arg(records_, envOut);
        LaunchOptions o = options({"sh", "-c", script}, "crash");
        o.kinds = "kernels,nvtx";
        o.environment = {{"EXTRA", "yes"}};
        const LaunchResult r = launchAndCapture(o, Progress());
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.signal, SIGSEGV);
        QCOMPARE(r.notes, std::vector<std::string>{
                              "sh was killed by SIGSEGV; what was recorded until then is kept"});
        QCOMPARE(r.run.files.size(), size_t(1));
        QVERIFY(QString::fromStdString(r.run.files.front())
                    .endsWith("/plugins/profile/run/gpu-box_42.xplane.pb"));
        QFile env(envOut);
        QVERIFY(env.open(QIODevice::ReadOnly));
        // NVTX is injected with the injection library itself (it forwards to its libcupti).
        QCOMPARE(env.readAll().trimmed(),
                 (records_ + "|" + records_ + "|kernels,nvtx|yes").toUtf8());
        // The record folder is gone; the run is what TensorBoard lists.
        const Discovery d = discoverProfiles(o.logDir);
        QVERIFY(d.ok());
        QCOMPARE(d.runs.size(), size_t(1));
    }

    void stopsAfterTheDurationAndOnCancel() {
        const QString script =
            QString("cp '%1' \"$STEPSCOPE_CUPTI_DIR/42.rec\"; exec sleep 30").arg(records_);
        LaunchOptions o = options({"sh", "-c", script}, "stop");
        o.stopAfterMs = 300;
        auto start = std::chrono::steady_clock::now();
        LaunchResult r = launchAndCapture(o, Progress());
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.signal, SIGTERM);
        QVERIFY(!r.cancelled);

        o.stopAfterMs = 0;
        o.logDir = dir_.filePath("cancel").toStdString();
        Progress progress;
        start = std::chrono::steady_clock::now();
        std::thread stopper([&progress] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            progress.cancel();
        });
        r = launchAndCapture(o, progress);
        stopper.join();
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
        QVERIFY(r.cancelled);
        QCOMPARE(r.run.files.size(), size_t(1)); // what was recorded before the stop is kept

        // A program that ignores SIGTERM is killed after the grace period (5 s).
        o.argv = {"sh", "-c",
                  QString("trap '' TERM; cp '%1' \"$STEPSCOPE_CUPTI_DIR/42.rec\"; "
                          "while :; do sleep 0.1; done")
                      .arg(records_)
                      .toStdString()};
        o.stopAfterMs = 200;
        o.logDir = dir_.filePath("stubborn").toStdString();
        start = std::chrono::steady_clock::now();
        r = launchAndCapture(o, Progress());
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
        QCOMPARE(r.signal, SIGKILL);
        QCOMPARE(r.run.files.size(), size_t(1));
    }

    // --delay and --duration: recording starts 0.7 s after the program (STEPSCOPE_CUPTI_START_NS,
    // the same wall-clock time for every process it starts) and lasts 0.8 s, so the stop comes
    // 1.5 s after the start; meanwhile the progress says when recording starts, then what the
    // record files hold so far (the prepared file: one kernel).
    void delayDurationAndLiveCounts() {
        const QString startFile = dir_.filePath("start_ns.txt");
        const QString script = QString("echo \"$STEPSCOPE_CUPTI_START_NS\" > '%1'; "
                                       "cp '%2' \"$STEPSCOPE_CUPTI_DIR/42.rec\"; exec sleep 30")
                                   .arg(startFile, records_);
        LaunchOptions o = options({"sh", "-c", script}, "delay");
        o.delayMs = 700;
        o.stopAfterMs = 800;
        QStringList stages;
        const Progress progress([&stages](std::string_view stage, double) {
            const QString s = QString::fromUtf8(stage.data(), qsizetype(stage.size()));
            if (stages.isEmpty() || stages.back() != s) stages << s;
        });
        const auto launchedAt = std::chrono::system_clock::now();
        const auto start = std::chrono::steady_clock::now();
        const LaunchResult r = launchAndCapture(o, progress);
        const auto took = std::chrono::steady_clock::now() - start;
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.signal, SIGTERM);
        QVERIFY(took >= std::chrono::milliseconds(1500));
        QVERIFY(took < std::chrono::seconds(5));
        std::ifstream startText(startFile.toStdString());
        int64_t startNs = 0;
        QVERIFY(startText >> startNs);
        const int64_t expectedNs =
            std::chrono::duration_cast<std::chrono::nanoseconds>(
                (launchedAt + std::chrono::milliseconds(700)).time_since_epoch())
                .count();
        QVERIFY2(std::abs(startNs - expectedNs) < 300'000'000, qPrintable(stages.join(" | ")));
        QVERIFY2(stages.contains("Running sh: recording starts in 1 s"),
                 qPrintable(stages.join(" | ")));
        QVERIFY2(stages.contains("Running sh: 1 kernel"), qPrintable(stages.join(" | ")));
    }

    // The disk fills while the records are converted (the file size limit of a child process
    // stands for it, as root too): the records, the only copy of the capture, are kept where the
    // program wrote them, no cut .xplane.pb is left, and the error says why, where the records
    // are and the command that converts them later; that command, run once there is room, makes
    // the run.
    void conversionThatFailsKeepsTheRecords() {
        const QString prepared = dir_.filePath("many_kernels.rec");
        {
            RecordFileWriter w(prepared.toStdString());
            w.add(ProcessRecord{42, "gpu-box", "train", 1'000'000'000, 100});
            for (uint64_t i = 0; i < 500; ++i) {
                KernelRecord k;
                k.startNs = 200 + 10 * i, k.endNs = 205 + 10 * i, k.streamId = 7;
                k.correlationId = uint32_t(i), k.name = "kernel";
                w.add(k);
            }
            QVERIFY(w.flush());
        }
        const qint64 recordBytes = QFileInfo(prepared).size();
        constexpr uint64_t kLimit = 16 * 1024;
        QVERIFY(recordBytes < qint64(kLimit));
        const QString script = QString("cp '%1' \"$STEPSCOPE_CUPTI_DIR/42.rec\"").arg(prepared);
        const LaunchOptions o = options({"sh", "-c", script}, "full disk");
        const QString error = QString::fromStdString(testing::runWithFileSizeLimit(
            kLimit, [&] { return launchAndCapture(o, Progress()).error; }));

        const QString profiles = QString::fromStdString(o.logDir) + "/plugins/profile";
        const QString kept = profiles + "/.stepscope-records-run/42.rec";
        const QString written = profiles + "/run/gpu-box_42.xplane.pb";
        QVERIFY2(error.startsWith("cannot write " + written + ": " + std::strerror(EFBIG)),
                 qPrintable(error));
        QVERIFY2(error.contains("The records are kept in " + profiles + "/.stepscope-records-run"),
                 qPrintable(error));
        QFile keptFile(kept), preparedFile(prepared);
        QVERIFY(keptFile.open(QIODevice::ReadOnly) && preparedFile.open(QIODevice::ReadOnly));
        QCOMPARE(keptFile.readAll(), preparedFile.readAll());
        QCOMPARE(QDir(profiles + "/run").entryList(QDir::Files | QDir::Hidden), QStringList());

        const QString marker = "convert them with: stepscope-cli ";
        QVERIFY2(error.contains(marker), qPrintable(error));
        const QString command = error.mid(error.indexOf(marker) + marker.size());
        QProcess p;
        p.start("sh", {"-c", QString("'%1' %2").arg(STEPSCOPE_CLI, command)});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(QString(p.readAllStandardOutput()).trimmed(), written);
        const LoadResult loaded = loadPath(written.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(loaded.profile->eventCount(), size_t(500));
    }

    void cliSaysWhyItCannotCapture() {
        QProcess p;
        p.start(STEPSCOPE_CLI, {"capture", "--logdir", dir_.filePath("cli"), "--kernels", "--",
                                "no-such-program-stepscope"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 1);
        const QString err = p.readAllStandardError();
#ifndef STEPSCOPE_CUPTI_LIBRARY
        QVERIFY2(err.contains("the CUPTI injection library is missing"), qPrintable(err));
#else
        QVERIFY2(err.contains(cudaDriverProblem().empty() ? "program not found"
                                                          : "no CUDA driver on this machine"),
                 qPrintable(err));
#endif
        p.start(STEPSCOPE_CLI, {"capture", "--logdir", dir_.filePath("cli"), "--"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        p.start(STEPSCOPE_CLI, {"capture", "--duration", "x", "--", "true"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
    }

    // Record files brought from another machine become a run as the launcher makes one: a host
    // per process, named <hostname>_<pid>; a file that cannot be read is a warning; with nothing
    // readable nothing is written and the exit code is 1; no file or no log directory is a usage
    // error (2).
    void cliTurnsRecordFilesIntoARun() {
        const QString logDir = dir_.filePath("records");
        const QString missing = dir_.filePath("missing.rec");
        QProcess p;
        p.start(STEPSCOPE_CLI, {"capture", "--records", records_, missing, "--logdir", logDir,
                                "--run", "from_gpu_box"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QString out = logDir + "/plugins/profile/from_gpu_box/gpu-box_42.xplane.pb";
        QCOMPARE(QString(p.readAllStandardOutput()).trimmed(), out);
        QVERIFY2(QString(p.readAllStandardError()).contains("warning: cannot open " + missing),
                 "the unreadable file is not named");
        const LoadResult loaded = loadPath(out.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(loaded.profile->eventCount(), size_t(1)); // the prepared kernel

        p.start(STEPSCOPE_CLI, {"capture", "--records", missing, "--logdir", logDir});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(QString(p.readAllStandardError()).contains("no profile was recorded"));
        p.start(STEPSCOPE_CLI, {"capture", "--records", "--logdir", logDir});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        p.start(STEPSCOPE_CLI, {"capture", "--records", records_});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
    }

    // Loaded as the driver would load it, in a child process (it installs exit and signal
    // handlers): without STEPSCOPE_CUPTI_DIR it records nothing; with it, where no driver
    // exists, it starts or says why, and never takes the program down.
    void injectionLibraryInitialisesCleanlyWithoutADriver() {
#ifndef STEPSCOPE_CUPTI_LIBRARY
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        for (const bool withDir : {false, true}) {
            const QString out = dir_.filePath(withDir ? "inject" : "inject-none");
            QDir().mkpath(out);
            const pid_t pid = ::fork();
            if (pid == 0) {
                if (withDir)
                    ::setenv("STEPSCOPE_CUPTI_DIR", out.toUtf8().constData(), 1);
                else
                    ::unsetenv("STEPSCOPE_CUPTI_DIR");
                void* lib = ::dlopen(STEPSCOPE_CUPTI_LIBRARY, RTLD_NOW | RTLD_LOCAL);
                if (!lib) ::_exit(10);
                auto* init = reinterpret_cast<int (*)()>(::dlsym(lib, "InitializeInjection"));
                if (!init) ::_exit(11);
                ::_exit(init() == 1 ? 0 : 12);
            }
            int status = 0;
            QCOMPARE(::waitpid(pid, &status, 0), pid);
            QVERIFY2(WIFEXITED(status), "the injection library crashed the process");
            QCOMPARE(WEXITSTATUS(status), 0);
            if (withDir) {
                // It wrote its header and process record, or nothing where CUPTI could not start
                // (no driver here: nothing).
                const QStringList files = QDir(out).entryList({"*.rec"});
                if (!capture::cudaDriverProblem().empty()) QVERIFY(files.isEmpty());
                for (const QString& f : files) {
                    const RecordFileContents c =
                        readRecordFile(QDir(out).filePath(f).toStdString());
                    QVERIFY2(c.ok() && c.problem.empty(), c.error.c_str());
                }
            }
        }
#endif
    }

private:
#ifdef STEPSCOPE_FAKE_CUPTI
    // Starts a child that loaded the stand-in libcupti (tests/fixtures/cupti) and the injection
    // library and ran InitializeInjection, recording into `out`, then runs `body` and exits with
    // what it returns.
    static pid_t startInjectedChild(const QString& out, const std::function<int(void* fake)>& body,
                                    const std::function<void()>& setup = {}) {
        QDir().mkpath(out);
        const pid_t pid = ::fork();
        if (pid == 0) {
            if (setup) setup(); // what the program did before CUDA loaded the library
            ::setenv("STEPSCOPE_CUPTI_DIR", out.toUtf8().constData(), 1);
            void* fake = ::dlopen(STEPSCOPE_FAKE_CUPTI, RTLD_NOW | RTLD_GLOBAL);
            if (!fake) ::_exit(20);
            void* lib = ::dlopen(STEPSCOPE_CUPTI_LIBRARY, RTLD_NOW | RTLD_LOCAL);
            if (!lib) ::_exit(21);
            auto* init = reinterpret_cast<int (*)()>(::dlsym(lib, "InitializeInjection"));
            if (!init || init() != 1) ::_exit(22);
            ::_exit(body(fake));
        }
        return pid;
    }

    // startInjectedChild, then its wait status, or -1 when it had not ended after 10 s (it is
    // then killed: a hang).
    static int injectedChild(const QString& out, const std::function<int(void* fake)>& body,
                             const std::function<void()>& setup = {}) {
        const pid_t pid = startInjectedChild(out, body, setup);
        const auto start = std::chrono::steady_clock::now();
        int status = 0;
        while (::waitpid(pid, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) {
                ::kill(pid, SIGKILL);
                ::waitpid(pid, &status, 0);
                return -1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return status;
    }

    template <class F> static F hook(void* fake, const char* name) {
        return reinterpret_cast<F>(::dlsym(fake, name));
    }

    // The one record file a child wrote into `out`.
    static RecordFileContents childRecords(const QString& out) {
        const QStringList files = QDir(out).entryList({"*.rec"});
        if (files.size() != 1) {
            RecordFileContents none;
            none.error = "expected one record file, found " + std::to_string(files.size());
            return none;
        }
        return readRecordFile(QDir(out).filePath(files[0]).toStdString());
    }

    static std::string fakeLog(void* fake) {
        return reinterpret_cast<const char* (*)()>(::dlsym(fake, "fakeCuptiLog"))();
    }

    static inline volatile sig_atomic_t programHandlerRan = 0;
    static void programHandler(int) {
        programHandlerRan = 1;
    }
#endif

private slots:
    // CUPTI's default thread ids are pthread_self() values; the library must ask for the OS
    // ids (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM = 1 in cupti_activity.h) before it enables
    // any record kind, as the setting applies to records made after it.
    void injectionLibraryAsksForOsThreadIds() {
#ifndef STEPSCOPE_FAKE_CUPTI
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        const int status = injectedChild(dir_.filePath("tid"), [](void* fake) {
            const std::string log = fakeLog(fake);
            const size_t set = log.find("setThreadIdType 1;");
            const size_t enable = log.find("enable ");
            if (enable == std::string::npos) return 3;
            if (set == std::string::npos) return 4;
            return set < enable ? 0 : 5;
        });
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0); // 4: never asked; 5: asked too late
#endif
    }

    // A program's own SIGTERM handler (a checkpoint on preemption) still runs, after the
    // library flushed what CUPTI held (its forced flush is CUPTI_ACTIVITY_FLAG_FLUSH_FORCED = 1);
    // a SIGTERM the program ignores stays ignored. Both children go on and exit with 0.
    void signalsChainToTheProgramsOwnHandlers() {
#ifndef STEPSCOPE_FAKE_CUPTI
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        int status = injectedChild(
            dir_.filePath("chain"),
            [](void* fake) {
                ::raise(SIGTERM);
                if (!programHandlerRan) return 3;
                return fakeLog(fake).find("flushAll 1;") != std::string::npos ? 0 : 4;
            },
            [] {
                struct sigaction sa {};
                sa.sa_handler = programHandler;
                sigemptyset(&sa.sa_mask);
                ::sigaction(SIGTERM, &sa, nullptr);
            });
        QVERIFY2(WIFEXITED(status), "the program's SIGTERM handler was replaced, not chained");
        QCOMPARE(WEXITSTATUS(status), 0);
        status = injectedChild(
            dir_.filePath("ignored"),
            [](void*) {
                ::raise(SIGTERM);
                return 0;
            },
            [] { ::signal(SIGTERM, SIG_IGN); });
        QVERIFY2(WIFEXITED(status), "a SIGTERM the program ignores killed it");
        QCOMPARE(WEXITSTATUS(status), 0);
#endif
    }

    // A SIGTERM that arrives while the library writes a buffer (its state locked) neither
    // deadlocks nor loses the flush: the program dies of SIGTERM within the time limit, after
    // the flush, and its record file is whole.
    void signalWhileWritingABufferDoesNotHang() {
#ifndef STEPSCOPE_FAKE_CUPTI
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        const QString out = dir_.filePath("busy");
        const int status = injectedChild(
            out,
            [](void* fake) {
                reinterpret_cast<void (*)(int)>(::dlsym(fake, "fakeCuptiRaiseInGetNext"))(SIGTERM);
                reinterpret_cast<size_t (*)()>(::dlsym(fake, "fakeCuptiDeliver"))();
                return 7; // not reached: SIGTERM's default action ends the program
            },
            [] { ::signal(SIGTERM, SIG_DFL); }); // a program of its own, not QtTest's handlers
        QVERIFY2(status != -1, "the program hung in the signal handler");
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(WTERMSIG(status), SIGTERM);
        const QStringList files = QDir(out).entryList({"*.rec"});
        QCOMPARE(files.size(), 1);
        const RecordFileContents c = readRecordFile(QDir(out).filePath(files[0]).toStdString());
        QVERIFY2(c.ok() && c.problem.empty(), c.error.c_str());
        QVERIFY(!c.records.empty()); // the process record
#endif
    }

    // A thread's name is read at its first recorded API call, while it runs: here the thread
    // ("loader-7") has ended when its record is delivered, and /proc no longer knows it. Its host
    // line carries the name. (Read at delivery, as before, it was "Thread <tid>".)
    void threadNamesAreReadWhenAThreadFirstCalls() {
#ifndef STEPSCOPE_FAKE_CUPTI
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        const QString out = dir_.filePath("names");
        const int status = injectedChild(out, [](void* fake) {
            std::atomic<uint32_t> tid{0};
            std::thread worker([&] {
                pthread_setname_np(pthread_self(), "loader-7");
                tid = uint32_t(::gettid());
                hook<void (*)(CUpti_CallbackDomain, CUpti_CallbackId)>(fake, "fakeCuptiApiCall")(
                    CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
            });
            worker.join();
            hook<void (*)(int, uint32_t, uint32_t, uint64_t, uint64_t, uint32_t)>(
                fake, "fakeCuptiQueueApi")(0, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, tid,
                                           2'000'000, 2'000'500, 5);
            hook<size_t (*)()>(fake, "fakeCuptiDeliver")();
            return 0;
        });
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        const RecordFileContents c = childRecords(out);
        QVERIFY2(c.ok() && c.problem.empty(), c.error.c_str());
        const LoadResult loaded =
            loadXSpaceBytes(convertToXSpace({c.records, "", c.rejected}), "names");
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QStringList lines;
        for (const Track& t : loaded.profile->tracks())
            lines << QString::fromStdString(std::string(loaded.profile->str(t.name)));
        QVERIFY2(lines.contains("loader-7"), qPrintable(lines.join(", ")));
#endif
    }

    // By default the API queries (cudaGetDevice, cudaGetLastError, cuGetProcAddress,
    // cuCtxGetCurrent, cuDeviceGetAttribute, cuStreamGetCaptureInfo) are not recorded, the calls
    // that launch, copy or synchronise are; STEPSCOPE_CUPTI_KINDS=api-all records every call.
    // The exit code names the first call whose recording is wrong (its index + 1).
    void noisyApiCallsAreLeftOutUnlessAsked() {
#ifndef STEPSCOPE_FAKE_CUPTI
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        struct Expected {
            CUpti_CallbackDomain domain;
            CUpti_CallbackId cbid;
            bool byDefault;
        };
        static constexpr Expected kCalls[] = {
            {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, true},
            {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, true},
            {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
             true},
            {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, false},
            {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020, false},
            {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, true},
            {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, true},
            {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, true},
            {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, true},
            {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2, false},
            {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent, false},
            {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute, false},
            {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v2, false},
        };
        for (const bool everyCall : {false, true}) {
            const int status = injectedChild(
                dir_.filePath(everyCall ? "api-all" : "api-default"),
                [everyCall](void* fake) {
                    const auto recorded = hook<int (*)(CUpti_CallbackDomain, CUpti_CallbackId)>(
                        fake, "fakeCuptiApiRecorded");
                    for (size_t i = 0; i < std::size(kCalls); ++i)
                        if (bool(recorded(kCalls[i].domain, kCalls[i].cbid)) !=
                            (everyCall || kCalls[i].byDefault))
                            return int(i) + 1;
                    return 0;
                },
                [everyCall] {
                    if (everyCall)
                        ::setenv("STEPSCOPE_CUPTI_KINDS", "kernels,api-all", 1);
                    else
                        ::unsetenv("STEPSCOPE_CUPTI_KINDS");
                });
            QVERIFY(WIFEXITED(status));
            QCOMPARE(WEXITSTATUS(status), 0);
        }
#endif
    }

    // NVTX reaches the CUPTI instance that records, in a process that loaded two copies of
    // libcupti (PyTorch's wheel brings its own): the injection library, bound to the first copy,
    // is what NVTX_INJECTION64_PATH names; NVTX loads it and calls its InitializeInjectionNvtx2
    // (nvtx3/nvtxDetail/nvtxInit.h), which goes on to the first copy, never the second.
    void nvtxReachesTheCuptiThatRecords() {
#ifndef STEPSCOPE_FAKE_CUPTI
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        const int status = injectedChild(dir_.filePath("nvtx"), [](void* fake) {
            void* second = ::dlopen(STEPSCOPE_FAKE_CUPTI_COPY, RTLD_NOW | RTLD_LOCAL);
            if (!second || second == fake) return 3;
            // What NVTX does with NVTX_INJECTION64_PATH.
            void* injection = ::dlopen(STEPSCOPE_CUPTI_LIBRARY, RTLD_LAZY);
            using GetExportTable = const void* (*)(uint32_t);
            const auto init = hook<int (*)(GetExportTable)>(injection, "InitializeInjectionNvtx2");
            if (!init) return 4;
            const GetExportTable table = [](uint32_t) -> const void* { return nullptr; };
            if (init(table) != 1) return 5;
            if (fakeLog(fake).find("nvtxInit 1;") == std::string::npos) return 6;
            const auto secondLog = hook<const char* (*)()>(second, "fakeCuptiLog");
            if (std::string(secondLog()).find("nvtxInit") != std::string::npos) return 7;
            return 0;
        });
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0); // 6: NVTX missed the recording copy; 7: reached the other
#endif
    }

    // A program killed with SIGKILL (or by the OOM killer) keeps what CUPTI had completed up to
    // the last periodic flush: the kernel it ran reaches the file within about a second, with no
    // exit, signal or full buffer to flush it, and the file reads back whole after the kill.
    void sigkillKeepsWhatWasFlushed() {
#ifndef STEPSCOPE_FAKE_CUPTI
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        const QString out = dir_.filePath("sigkill");
        const auto start = std::chrono::steady_clock::now();
        const pid_t pid = startInjectedChild(out, [](void* fake) -> int {
            hook<void (*)(const char*, uint64_t, uint64_t, uint32_t, uint32_t)>(
                fake, "fakeCuptiQueueKernel")("before_the_kill", 2'000'000, 2'001'000, 7, 9);
            for (;;) ::pause();
        });
        const auto hasKernel = [](const RecordFileContents& c) {
            return std::any_of(c.records.begin(), c.records.end(), [](const Record& r) {
                const auto* k = std::get_if<KernelRecord>(&r);
                return k && k->name == "before_the_kill";
            });
        };
        bool flushed = false;
        while (!flushed && std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            flushed = hasKernel(childRecords(out));
        }
        const auto took = std::chrono::steady_clock::now() - start;
        ::kill(pid, SIGKILL);
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        QVERIFY2(flushed, "nothing was flushed while the program ran");
        QVERIFY2(took < std::chrono::milliseconds(2500), "the first flush took over 2.5 s");
        const RecordFileContents c = childRecords(out);
        QVERIFY2(c.ok(), c.error.c_str());
        QVERIFY2(c.problem.empty(), c.problem.c_str());
        QVERIFY(hasKernel(c));
        QVERIFY(std::holds_alternative<ProcessRecord>(c.records.front()));
#endif
    }

    // A child forked without exec from a recording process (a DataLoader worker under the fork
    // start method) cannot use CUDA, and what it inherited of records (CUPTI's queued buffers)
    // is its parent's. Here the child gets a buffer handed over (as CUPTI's worker would) and
    // runs the exit handlers, as a Python child that leaves through sys.exit does: neither may
    // reach the parent's record file (their shared file offset would append them), nor may the
    // child start a file of its own. So one file, the parent's: one process record (the
    // parent's pid) and "parent_kernel" once, never "child_kernel".
    void forkedChildWritesNothing() {
#ifndef STEPSCOPE_FAKE_CUPTI
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        const QString out = dir_.filePath("fork");
        const int status = injectedChild(out, [](void* fake) -> int {
            using Queue = void (*)(const char*, uint64_t, uint64_t, uint32_t, uint32_t);
            const auto hold = hook<void (*)(int)>(fake, "fakeCuptiHold");
            const auto deliver = hook<size_t (*)()>(fake, "fakeCuptiDeliver");
            // Held, the flusher thread leaves the stand-in's queue (and its lock) alone, so the
            // child never inherits that lock taken.
            hold(1);
            hook<Queue>(fake, "fakeCuptiQueueKernel")("parent_kernel", 2'000'000, 2'001'000, 7, 9);
            const pid_t child = ::fork();
            if (child == 0) {
                forkedChild = true;
                hold(0);
                hook<Queue>(fake, "fakeCuptiQueueKernel")("child_kernel", 3'000'000, 3'001'000, 7,
                                                          9);
                deliver();
                hook<Queue>(fake, "fakeCuptiQueueKernel")("child_kernel", 4'000'000, 4'001'000, 7,
                                                          10);
                std::exit(0);
            }
            int childStatus = 0;
            if (::waitpid(child, &childStatus, 0) != child || !WIFEXITED(childStatus) ||
                WEXITSTATUS(childStatus) != 0)
                return 30;
            hold(0);
            deliver();
            return 0;
        });
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        const QStringList files = QDir(out).entryList({"*.rec"});
        QCOMPARE(files.size(), 1);
        const RecordFileContents c = childRecords(out);
        QVERIFY2(c.ok() && c.problem.empty(), (c.error + c.problem).c_str());
        std::vector<std::string> kernels;
        uint32_t pid = 0;
        for (const Record& r : c.records) {
            if (const auto* k = std::get_if<KernelRecord>(&r)) kernels.push_back(k->name);
            if (const auto* p = std::get_if<ProcessRecord>(&r)) pid = p->pid;
        }
        QCOMPARE(c.processRecords, uint64_t(1));
        QCOMPARE(files[0], QString::number(pid) + ".rec");
        QCOMPARE(kernels, std::vector<std::string>{"parent_kernel"});
#endif
    }

    // `bench capture` runs the injection library on the stand-in and prints one JSON line per
    // figure: three record mixes, two frame sizes, the API callback (10 calls per record).
    void benchCaptureRuns() {
#ifndef STEPSCOPE_FAKE_CUPTI
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        QProcess p;
        p.start(STEPSCOPE_CLI, {"bench", "capture", "--records", "4000", "--repeat", "1"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QStringList figures;
        for (const QByteArray& line : p.readAllStandardOutput().split('\n')) {
            if (line.isEmpty()) continue;
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            QCOMPARE(o["bench"].toString(), QString("capture"));
            figures << o["figure"].toString() + ":" + o["records"].toString();
            if (o["figure"] == "api_callback") {
                QCOMPARE(o["calls"].toInteger(), 40000);
            } else {
                QCOMPARE(o["count"].toInteger(), 4000);
                QVERIFY(o["ns_per_record"].toDouble() > 0);
                QVERIFY(o["bytes_per_record"].toDouble() > 0); // the records reached the file
            }
        }
        QCOMPARE(figures,
                 QStringList({"per_record:kernels", "per_record:api", "per_record:gemmsteps_mix",
                              "frame_every_2000_records:gemmsteps_mix",
                              "frame_every_20000_records:gemmsteps_mix", "api_callback:"}));
#endif
    }

    // STEPSCOPE_CUPTI_START_NS (the launcher's --delay): the process record is written at once,
    // the record kinds are enabled only once that time has come (kernels: enable 10,
    // CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL).
    void recordingStartsAfterTheDelay() {
#ifndef STEPSCOPE_FAKE_CUPTI
        QSKIP("this build has no CUPTI (no CUDA toolkit found)");
#else
        const QString out = dir_.filePath("delayed");
        const int status = injectedChild(
            out,
            [out](void* fake) {
                if (fakeLog(fake).find("enable 10;") != std::string::npos) return 3;
                if (childRecords(out).records.empty()) return 4;
                std::this_thread::sleep_for(std::chrono::milliseconds(1500));
                return fakeLog(fake).find("enable 10;") != std::string::npos ? 0 : 5;
            },
            [] {
                const auto at = std::chrono::system_clock::now() + std::chrono::milliseconds(800);
                ::setenv("STEPSCOPE_CUPTI_START_NS",
                         std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                            at.time_since_epoch())
                                            .count())
                             .c_str(),
                         1);
            });
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0); // 3: enabled before the delay; 5: never after it
#endif
    }

    // A launcher script whose worker outlives it (torchrun's parent exiting first): the run is
    // converted only once the worker wrote its records, 1 s after the script ended.
    void waitsForTheProcessesTheProgramStarted() {
        const QString script =
            QString("(sleep 1; cp '%1' \"$STEPSCOPE_CUPTI_DIR/43.rec\") & exit 0").arg(records_);
        const LaunchResult r =
            launchAndCapture(options({"sh", "-c", script}, "worker"), Progress());
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.run.files.size(), size_t(1));
    }

    // A stop reaches the whole process group: a script and its child that both ignore SIGTERM
    // are killed 5 s later (the grace period), the child too, and the launcher says so.
    void stopKillsTheWholeGroupAfterTheGracePeriod() {
        const QString pidFile = dir_.filePath("child.pid");
        const QString script =
            QString("trap '' TERM; (trap '' TERM; exec sleep 60) & echo $! > '%1'; "
                    "cp '%2' \"$STEPSCOPE_CUPTI_DIR/42.rec\"; while :; do sleep 0.1; done")
                .arg(pidFile, records_);
        LaunchOptions o = options({"sh", "-c", script}, "group");
        o.stopAfterMs = 300;
        const auto start = std::chrono::steady_clock::now();
        const LaunchResult r = launchAndCapture(o, Progress());
        const auto took = std::chrono::steady_clock::now() - start;
        QVERIFY(took >= std::chrono::seconds(5));
        QVERIFY(took < std::chrono::seconds(12));
        QCOMPARE(r.signal, SIGKILL);
        QCOMPARE(r.run.files.size(), size_t(1));
        QVERIFY(std::find(r.notes.begin(), r.notes.end(),
                          "sh did not stop within 5 s of SIGTERM and was killed") != r.notes.end());
        // The child is gone, or a zombie waiting for an init that does not reap.
        std::ifstream pidText(pidFile.toStdString());
        pid_t child = 0;
        QVERIFY(pidText >> child);
        std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
        std::string text;
        if (stat && std::getline(stat, text))
            QCOMPARE(text.substr(text.rfind(')') + 2, 1), std::string("Z"));
    }
};

QTEST_GUILESS_MAIN(TestCuptiLauncher)
#include "test_cupti_launcher.moc"
