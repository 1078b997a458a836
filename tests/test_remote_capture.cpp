// Remote capture against profiler services that this suite runs in-process (grpc++ servers
// implementing tensorflow.ProfilerService as TSL's server does: it writes the XSpace to
// repository_root/session_id/<host_name, ':' as '_'>.xplane.pb), and `stepscope-cli capture`
// as a user runs it. Covers the request's fields as sent, where the file lands, inline tool
// data, retries on empty traces, deadlines, cancel, unreachable and foreign servers, a log
// directory that cannot be written, and one of two services failing.
#include <QtTest>

#include <QProcess>
#include <QRegularExpression>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>

#include "capture/RemoteCapture.h"
#include "model/LogDir.h"
#include "model/ProfileLoader.h"
#include "tests/fixtures/capture/FakeProfilerService.h"

using namespace stepscope;
using namespace stepscope::capture;
namespace fs = std::filesystem;

namespace {

using fixtures::closedPort;
using fixtures::FakeProfiler;
using fixtures::Http1Server;
using TestServer = fixtures::TestGrpcServer;

std::string fixtureBytes() {
    return fixtures::fakeProfileBytes();
}

std::string readFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

class TestRemoteCapture : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    RemoteCaptureOptions options(const std::vector<std::string>& addresses,
                                 const QString& sub = "logs") const {
        RemoteCaptureOptions o;
        o.addresses = addresses;
        o.logDir = (dir_.path() + "/" + sub).toStdString();
        o.durationMs = 100;
        o.retries = 0;
        o.connectTimeoutMs = 2000;
        return o;
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void parsesAddressesAsTslValidatesThem() {
        std::vector<std::string> out;
        QCOMPARE(parseServiceAddresses("localhost:6009", out), std::string());
        QCOMPARE(out, std::vector<std::string>{"localhost:6009"});
        QCOMPARE(parseServiceAddresses(" grpc://a:1 , b:2,,a:1 ", out), std::string());
        QCOMPARE(out, (std::vector<std::string>{"a:1", "b:2"}));
        QCOMPARE(parseServiceAddresses("[::1]:6009", out), std::string());
        QCOMPARE(out, std::vector<std::string>{"[::1]:6009"});
        const char* bad[] = {"localhost", "a:0",   "a:65536", "a:x", ":80",
                             "a/b:1",     "a:1:2", "a:1,b",   "",    " , "};
        for (const char* text : bad) {
            QVERIFY2(!parseServiceAddresses(text, out).empty(), text);
            QVERIFY(out.empty());
        }
        QVERIFY(QString::fromStdString(parseServiceAddresses("a:1,hostonly", out))
                    .contains("hostonly"));
    }

    void validatesOptions() {
        RemoteCaptureOptions o = options({"a:1"});
        QCOMPARE(validateOptions(o), std::string());
        o.durationMs = 0;
        QVERIFY(!validateOptions(o).empty());
        o = options({"a:1"});
        o.hostTracerLevel = 4;
        QVERIFY(!validateOptions(o).empty());
        o = options({"a:1"});
        o.deviceTracerLevel = 2;
        QVERIFY(!validateOptions(o).empty());
        o = options({"a:1"});
        o.logDir.clear();
        QVERIFY(!validateOptions(o).empty());
        o = options({"a:1"});
        o.runName = "../x";
        QVERIFY(!validateOptions(o).empty());
    }

    void deadlineFollowsTsl() {
        RemoteCaptureOptions o;
        o.durationMs = 1000;
        QCOMPARE(attemptDeadlineMs(o), uint64_t(60000)); // max(60 s, 2 s)
        o.durationMs = 45000;
        o.delayMs = 500;
        QCOMPARE(attemptDeadlineMs(o), uint64_t(90500)); // 2 x 45 s + delay
        o.deadlineMs = 1234;
        QCOMPARE(attemptDeadlineMs(o), uint64_t(1234));
    }

    // The request as TSL's PopulateProfileRequest fills it, and the file where TensorBoard finds
    // it: LOGDIR/plugins/profile/<run>/<host>_<port>.xplane.pb.
    void sendsTheRequestAndTheFileLandsWhereTensorBoardLooks() {
        FakeProfiler service;
        TestServer server(&service);
        RemoteCaptureOptions o = options({server.address()}, "request");
        o.durationMs = 150;
        o.hostTracerLevel = 3;
        o.deviceTracerLevel = 0;
        o.pythonTracerLevel = 1;
        o.delayMs = 40;
        o.runName = "run_a";
        const auto before = std::chrono::system_clock::now();
        const RemoteCaptureResult r = captureRemote(o, Progress());
        QVERIFY2(r.ok(), r.error.c_str());

        const std::vector<tensorflow::ProfileRequest> requests = service.requests();
        QCOMPARE(requests.size(), size_t(1));
        const tensorflow::ProfileRequest& q = requests.front();
        const std::string root = o.logDir + "/plugins/profile";
        QCOMPARE(q.duration_ms(), uint64_t(150));
        QCOMPARE(q.opts().duration_ms(), uint64_t(150));
        QCOMPARE(q.max_events(), uint64_t(1000000));
        QCOMPARE(q.repository_root(), root);
        QCOMPARE(q.session_id(), std::string("run_a"));
        QCOMPARE(q.host_name(), server.address());
        QCOMPARE(q.opts().version(), 1u);
        QCOMPARE(q.opts().host_tracer_level(), 3u);
        QCOMPARE(q.opts().device_tracer_level(), 0u);
        QCOMPARE(q.opts().python_tracer_level(), 1u);
        QVERIFY(q.opts().include_dataset_ops());
        QCOMPARE(q.opts().repository_path(), o.logDir);
        QVERIFY(std::find(q.tools().begin(), q.tools().end(), "xplane.pb") != q.tools().end());
        // start_timestamp_ns = the time of the request + the delay.
        const int64_t beforeNs =
            std::chrono::duration_cast<std::chrono::nanoseconds>(before.time_since_epoch()).count();
        QVERIFY(int64_t(q.opts().start_timestamp_ns()) >= beforeNs + 40'000'000);
        QVERIFY(int64_t(q.opts().start_timestamp_ns()) < beforeNs + 40'000'000 + 5'000'000'000);

        const std::string file =
            root + "/run_a/127.0.0.1_" + std::to_string(server.port()) + ".xplane.pb";
        QCOMPARE(r.runName, std::string("run_a"));
        QCOMPARE(r.runDir, root + "/run_a");
        QCOMPARE(r.files, std::vector<std::string>{file});
        QCOMPARE(r.attempts, 1u);
        QVERIFY(r.warnings.empty());
        // The run opens as TensorBoard would list it, with the fixture's content.
        const Discovery d = discoverProfiles(o.logDir);
        QVERIFY(d.ok());
        QCOMPARE(d.runs.front().name, std::string("run_a"));
        QCOMPARE(d.runs.front().hosts.front().host, "127.0.0.1_" + std::to_string(server.port()));
        const LoadResult loaded = loadPath(file);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(loaded.profile->hosts().front().hostnames,
                 std::vector<std::string>{"fixture-host"});
    }

    void namesTheRunByTheLocalTimeAsTsl() {
        FakeProfiler service;
        TestServer server(&service);
        const RemoteCaptureOptions o = options({server.address()}, "stamp");
        const RemoteCaptureResult first = captureRemote(o, Progress());
        const RemoteCaptureResult second = captureRemote(o, Progress());
        QVERIFY2(first.ok() && second.ok(), (first.error + second.error).c_str());
        const QRegularExpression stamp("^\\d{4}_\\d{2}_\\d{2}_\\d{2}_\\d{2}_\\d{2}(_\\d+)?$");
        QVERIFY(stamp.match(QString::fromStdString(first.runName)).hasMatch());
        QVERIFY(stamp.match(QString::fromStdString(second.runName)).hasMatch());
        QVERIFY(first.runName != second.runName); // a second capture never overwrites a run
        QCOMPARE(service.requests().front().session_id(), first.runName);
    }

    void writesInlineToolDataItself() {
        FakeProfiler service;
        service.mode = FakeProfiler::Mode::Inline;
        tensorflow::ProfileToolData helper, escape;
        helper.set_name("x.tf_stats_helper_result");
        helper.set_data("skip");
        escape.set_name("../../escaped.pb");
        escape.set_data("never");
        service.extraTools = {helper, escape};
        TestServer server(&service);
        RemoteCaptureOptions o = options({server.address()}, "inline");
        o.runName = "r";
        const RemoteCaptureResult r = captureRemote(o, Progress());
        QVERIFY2(r.ok(), r.error.c_str());
        const std::string file = o.logDir + "/plugins/profile/r/127.0.0.1_" +
                                 std::to_string(server.port()) + ".xplane.pb";
        QCOMPARE(r.files, std::vector<std::string>{file});
        QCOMPARE(readFile(file), fixtureBytes());
        QCOMPARE(r.warnings.size(), size_t(1)); // the name that is not a file name
        QVERIFY(QString::fromStdString(r.warnings.front()).contains("not a file name"));
        QCOMPARE(std::distance(fs::directory_iterator(o.logDir + "/plugins/profile/r"),
                               fs::directory_iterator()),
                 1);
        QVERIFY(!fs::exists(o.logDir + "/escaped.pb"));
        QVERIFY(!fs::exists(o.logDir + "/plugins/escaped.pb"));
    }

    void retriesEmptyTracesAsTensorBoard() {
        FakeProfiler service;
        service.emptyAnswers = 2;
        TestServer server(&service);
        RemoteCaptureOptions o = options({server.address()}, "retry");
        o.retries = 3;
        std::mutex mutex;
        std::vector<std::string> stages;
        std::atomic<bool> fractionsInRange{true};
        const Progress progress([&](std::string_view stage, double f) {
            if (!(f >= 0.0 && f < 1.0)) fractionsInRange = false;
            const std::lock_guard lock(mutex);
            stages.emplace_back(stage);
        });
        const RemoteCaptureResult r = captureRemote(o, progress);
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(fractionsInRange);
        QCOMPARE(r.attempts, 3u);
        const auto requests = service.requests();
        QCOMPARE(requests.size(), size_t(3));
        QCOMPARE(requests[0].session_id(), requests[2].session_id()); // one run
        QCOMPARE(r.files.size(), size_t(1));
        const auto saw = [&](const char* s) {
            return std::any_of(stages.begin(), stages.end(),
                               [s](const std::string& x) { return x.starts_with(s); });
        };
        QVERIFY(saw("Attempt 1 of 4"));
        QVERIFY(saw("Attempt 3 of 4"));
        QVERIFY(!saw("Attempt 4 of 4"));
    }

    void emptyAfterEveryRetryFailsAndLeavesNoRun() {
        FakeProfiler service;
        service.emptyAnswers = 100;
        TestServer server(&service);
        RemoteCaptureOptions o = options({server.address()}, "empty");
        o.retries = 1;
        const RemoteCaptureResult r = captureRemote(o, Progress());
        QVERIFY(!r.ok());
        QVERIFY(!r.cancelled);
        QCOMPARE(r.attempts, 2u);
        QCOMPARE(service.requests().size(), size_t(2));
        const QString error = QString::fromStdString(r.error);
        QVERIFY2(error.contains(QString::fromStdString(server.address()) +
                                " collected no trace events in 2 attempts"),
                 r.error.c_str());
        QVERIFY(error.contains("No trace events were collected"));
        QVERIFY(!fs::exists(r.runDir));
    }

    void connectionRefusedFailsAtOnceNamingTheAddress() {
        const std::string address = "127.0.0.1:" + std::to_string(closedPort());
        RemoteCaptureOptions o = options({address}, "refused");
        o.retries = 3; // a refused connection is not retried: the job is not there
        const auto start = std::chrono::steady_clock::now();
        const RemoteCaptureResult r = captureRemote(o, Progress());
        QVERIFY(secondsSince(start) < 3.0);
        QVERIFY(!r.ok());
        QCOMPARE(r.attempts, 1u);
        QVERIFY2(QString::fromStdString(r.error).contains(
                     QString::fromStdString(address + ": connection refused")),
                 r.error.c_str());
    }

    // An address that never answers fails within the connect timeout, not the minute-long
    // deadline.
    void silentAddressFailsWithinTheConnectTimeout() {
        fixtures::SilentServer silent;
        RemoteCaptureOptions o = options({silent.address()}, "silent");
        o.connectTimeoutMs = 1000;
        const auto start = std::chrono::steady_clock::now();
        const RemoteCaptureResult r = captureRemote(o, Progress());
        QVERIFY(secondsSince(start) < 3.0);
        QVERIFY(!r.ok());
        QCOMPARE(r.error, silent.address() +
                              " is unreachable: no answer within 1 s (is the address right, the "
                              "job running and the port open?)");
    }

    void unresolvableHostFailsWithinSeconds() {
        RemoteCaptureOptions o = options({"no-such-host.invalid:6009"}, "dns");
        o.connectTimeoutMs = 2000;
        const auto start = std::chrono::steady_clock::now();
        const RemoteCaptureResult r = captureRemote(o, Progress());
        QVERIFY(secondsSince(start) < 4.0);
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error).startsWith("no-such-host.invalid:6009"),
                 r.error.c_str());
    }

    void aGrpcServerWithoutTheServiceIsNamedAsSuch() {
        TestServer server(nullptr);
        const RemoteCaptureResult r =
            captureRemote(options({server.address()}, "foreign"), Progress());
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error).contains(
                     QString::fromStdString(server.address() + " is not a profiler service")),
                 r.error.c_str());
    }

    void anHttpServerIsNamedAsSuch() {
        Http1Server http;
        const auto start = std::chrono::steady_clock::now();
        const RemoteCaptureResult r = captureRemote(options({http.address()}, "http"), Progress());
        QVERIFY(secondsSince(start) < 4.0);
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error).startsWith(QString::fromStdString(
                     http.address() + " is not a profiler service: it does not speak gRPC")),
                 r.error.c_str());
    }

    void deadlineExceededIsSaidPlainly() {
        FakeProfiler service;
        service.sleepMs = 10000;
        TestServer server(&service);
        RemoteCaptureOptions o = options({server.address()}, "deadline");
        o.deadlineMs = 400;
        const auto start = std::chrono::steady_clock::now();
        const RemoteCaptureResult r = captureRemote(o, Progress());
        QVERIFY(secondsSince(start) < 3.0);
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error).contains(QString::fromStdString(
                     server.address() + " did not answer within 0.4 s (deadline exceeded)")),
                 r.error.c_str());
    }

    void cancelStopsTheServerSessionSoon() {
        FakeProfiler service;
        TestServer server(&service);
        RemoteCaptureOptions o = options({server.address()}, "cancel");
        o.durationMs = 20000;
        o.runName = "cancelled_run";
        Progress progress;
        RemoteCaptureResult r;
        const auto start = std::chrono::steady_clock::now();
        std::thread worker([&] { r = captureRemote(o, progress); });
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        progress.cancel();
        worker.join();
        QVERIFY(secondsSince(start) < 2.0);
        QVERIFY(r.cancelled);
        QVERIFY(!r.ok());
        QTRY_VERIFY_WITH_TIMEOUT(service.sawCancel.load(), 2000);
        QVERIFY(!fs::exists(o.logDir + "/plugins/profile/cancelled_run"));
    }

    void logDirectoryThatCannotBeWritten() {
        // Under a regular file no folder can be made (whoever runs the test, root included).
        const QString file = dir_.path() + "/plain-file";
        QVERIFY(QFile(file).open(QIODevice::WriteOnly));
        RemoteCaptureOptions o = options({"127.0.0.1:1"});
        o.logDir = (file + "/logs").toStdString();
        RemoteCaptureResult r = captureRemote(o, Progress());
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error).startsWith("cannot create " + file),
                 r.error.c_str());

        if (::geteuid() == 0) QSKIP("running as root: a read-only folder is still writable");
        const fs::path readOnly = (dir_.path() + "/read-only").toStdString();
        fs::create_directories(readOnly / "plugins" / "profile");
        fs::permissions(readOnly / "plugins" / "profile",
                        fs::perms::owner_read | fs::perms::owner_exec);
        o.logDir = readOnly.string();
        r = captureRemote(o, Progress());
        fs::permissions(readOnly / "plugins" / "profile", fs::perms::owner_all);
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error).startsWith("the log directory is not writable"),
                 r.error.c_str());
    }

    // Both services are profiled at once into one run; the one that fails is named in a
    // warning and the other's profile is kept.
    void capturesSeveralServicesInParallelAndKeepsThePartThatWorked() {
        FakeProfiler a, b;
        TestServer serverA(&a), serverB(&b);
        RemoteCaptureOptions o = options({serverA.address(), serverB.address()}, "two");
        o.durationMs = 600;
        o.runName = "pair";
        auto start = std::chrono::steady_clock::now();
        RemoteCaptureResult r = captureRemote(o, Progress());
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(secondsSince(start) < 1.1); // parallel: one duration, not two
        QCOMPARE(r.files.size(), size_t(2));
        const Discovery d = discoverProfiles(o.logDir);
        QVERIFY(d.ok());
        QCOMPARE(d.runs.front().hosts.size(), size_t(2));

        b.mode = FakeProfiler::Mode::Error;
        o.runName = "one_failed";
        r = captureRemote(o, Progress());
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.files.size(), size_t(1));
        QVERIFY(QString::fromStdString(r.files.front())
                    .endsWith(QString("_%1.xplane.pb").arg(serverA.port())));
        QCOMPARE(r.warnings.size(), size_t(1));
        QVERIFY2(
            QString::fromStdString(r.warnings.front())
                .startsWith(QString::fromStdString(serverB.address() + ": the profiler failed")),
            r.warnings.front().c_str());

        a.mode = FakeProfiler::Mode::Error;
        o.runName = "both_failed";
        r = captureRemote(o, Progress());
        QVERIFY(!r.ok());
        QVERIFY(
            QString::fromStdString(r.error).contains(QString::fromStdString(serverA.address())));
        QVERIFY(
            QString::fromStdString(r.error).contains(QString::fromStdString(serverB.address())));
    }

    // ---- stepscope-cli capture

    void cliCapturesAndPrintsTheFiles() {
        FakeProfiler service;
        TestServer server(&service);
        const QString logdir = dir_.path() + "/cli";
        QProcess p;
        p.start(STEPSCOPE_CLI,
                {"capture", "--service", QString::fromStdString(server.address()), "--logdir",
                 logdir, "--duration-ms", "120", "--retries", "0", "--host-tracer-level", "1"});
        QVERIFY(p.waitForFinished(30000));
        const QString out = p.readAllStandardOutput();
        QVERIFY2(p.exitCode() == 0, qPrintable(p.readAllStandardError()));
        const auto requests = service.requests();
        QCOMPARE(requests.size(), size_t(1));
        QCOMPARE(requests.front().opts().duration_ms(), uint64_t(120));
        QCOMPARE(requests.front().opts().host_tracer_level(), 1u);
        const QString expected = logdir + "/plugins/profile/" +
                                 QString::fromStdString(requests.front().session_id()) +
                                 QString("/127.0.0.1_%1.xplane.pb").arg(server.port());
        QVERIFY2(out.split('\n').contains(expected), qPrintable(out));
        QVERIFY(QFile::exists(expected));
    }

    void cliFailsQuicklyWithTheMessage() {
        const QString address = QString("127.0.0.1:%1").arg(closedPort());
        QProcess p;
        const auto start = std::chrono::steady_clock::now();
        p.start(STEPSCOPE_CLI,
                {"capture", "--service", address, "--logdir", dir_.path() + "/cli-fail"});
        QVERIFY(p.waitForFinished(30000));
        QVERIFY(secondsSince(start) < 5.0);
        QCOMPARE(p.exitCode(), 1);
        const QString err = p.readAllStandardError();
        QVERIFY2(err.contains(address + ": connection refused"), qPrintable(err));
    }

    void cliRejectsBadArguments() {
        const QStringList bad[] = {
            {"capture", "--logdir", "x"},                        // no service
            {"capture", "--service", "a:1"},                     // no logdir
            {"capture", "--service", "nohost", "--logdir", "x"}, // no port
            {"capture", "--service", "a:1", "--logdir", "x", "--duration-ms", "-5"},
            {"capture", "--service", "a:1", "--logdir", "x", "--duration-ms", "0"},
            {"capture", "--service", "a:1", "--logdir", "x", "--device-tracer-level", "7"},
            {"capture", "--service", "a:1", "--logdir", "x", "--bogus"},
        };
        for (const QStringList& args : bad) {
            QProcess p;
            p.start(STEPSCOPE_CLI, args);
            QVERIFY(p.waitForFinished(10000));
            QVERIFY2(p.exitCode() == 2, qPrintable(args.join(' ')));
            QVERIFY(!p.readAllStandardError().isEmpty());
        }
    }
};

QTEST_GUILESS_MAIN(TestRemoteCapture)
#include "test_remote_capture.moc"
