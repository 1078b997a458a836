// stepscope-cli as a user runs it (the built binary, through QProcess): info, export (byte for
// byte the table the GUI shows, written by the same CSV writer), generate, and clear exit codes
// and messages for bad input.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sstream>

#include "model/Csv.h"
#include "model/LogDir.h"
#include "model/ProfileLoader.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/MemoryProfile.h"
#include "model/analysis/TfOpStats.h"
#include "model/synthetic/SyntheticProfile.h"
#include "tests/fixtures/FileSizeLimit.h"
#include "tests/fixtures/FixtureXSpace.h"

using namespace stepscope;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

// Runs `program` (the CLI unless said); `fileSizeLimit` > 0 limits the files it writes to that
// many bytes (a full disk).
Run cli(const QStringList& args, uint64_t fileSizeLimit = 0,
        const QString& program = QStringLiteral(STEPSCOPE_CLI)) {
    QProcess p;
    if (fileSizeLimit > 0) testing::limitFileSize(p, fileSizeLimit);
    p.start(program, args);
    Run r;
    if (!p.waitForFinished(120000)) return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray csvOf(const Table& t) {
    std::ostringstream out;
    writeCsv(t, out);
    return QByteArray::fromStdString(out.str());
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        logdir_ = dir_.path() + "/logs";
        SyntheticOptions o;
        o.events = 5000;
        QCOMPARE(writeSyntheticLogDir(o, 1, logdir_.toStdString(), "run1"), std::string());
    }

    void infoJsonMatchesTheLoadedProfile() {
        const Run r = cli({"info", logdir_, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonDocument doc = QJsonDocument::fromJson(r.out);
        QVERIFY(doc.isObject());
        const LoadResult loaded = loadPath(logdir_.toStdString());
        QVERIFY(loaded.ok());
        QCOMPARE(qint64(doc.object()["events"].toDouble()), qint64(loaded.profile->eventCount()));
        QCOMPARE(doc.object()["planes"].toArray().size(),
                 qsizetype(loaded.profile->planes().size()));
    }

    void exportWritesTheToolsTable() {
        const LoadResult loaded = loadPath(logdir_.toStdString());
        QVERIFY(loaded.ok());
        const TfOpStats ops = computeTfOpStats(*loaded.profile);
        const MemoryProfile memory = computeMemoryProfile(*loaded.profile);
        QVERIFY(memory.find("GPU_1_bfc"));
        const struct {
            QStringList args;
            QByteArray expected;
        } cases[] = {
            {{"kernel_stats"}, csvOf(computeKernelStats(*loaded.profile).table)},
            {{"tf_stats"}, csvOf(tfOpStatsTable(ops, false))},
            {{"tf_stats", "--include-idle"}, csvOf(tfOpStatsTable(ops, true))},
            {{"memory_profile"}, csvOf(memory.defaultShown()->breakdown)}, // the page's series
            {{"memory_profile", "--memory-id", "GPU_1_bfc"},
             csvOf(memory.find("GPU_1_bfc")->breakdown)},
        };
        for (const auto& c : cases) {
            const QString out = dir_.path() + "/" + c.args.join('_') + ".csv";
            QStringList args = {"export", c.args[0], logdir_, "--csv", out};
            args += c.args.mid(1);
            const Run r = cli(args);
            QCOMPARE(r.exitCode, 0);
            QVERIFY(c.expected.count("\r\n") > 5); // header and rows
            QCOMPARE(readAll(out), c.expected);
        }
    }

    // An export or diff over an earlier one that fails part-way (the disk fills: here the CLI's
    // file size limit is 1 KiB) leaves the earlier file as it was, says why, and exits 1.
    void failedExportsLeaveTheOldFile() {
        const QString out = dir_.path() + "/earlier";
        const QByteArray earlier = "an earlier export the user keeps\n";
        const QStringList commands[] = {
            {"export", "kernel_stats", logdir_, "--no-cache", "--csv", out},
            {"export", "kernel_stats", logdir_, "--no-cache", "--json", out},
            {"diff", logdir_, logdir_, "--csv", out},
            {"diff", logdir_, logdir_, "--json", out},
        };
        for (const QStringList& args : commands) {
            QFile f(out);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(earlier);
            f.close();
            QVERIFY(cli(args).exitCode == 0 && readAll(out).size() > 1024); // fits unlimited
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(earlier);
            f.close();
            const Run r = cli(args, 1024);
            QCOMPARE(r.exitCode, 1);
            QCOMPARE(readAll(out), earlier);
            QVERIFY2(r.err.contains(("cannot write " + out + ": " + std::strerror(EFBIG)).toUtf8()),
                     r.err.constData());
            QCOMPARE(QDir(dir_.path()).entryList({"earlier*"}, QDir::Files | QDir::Hidden),
                     QStringList{"earlier"}); // no temporary file left
        }
    }

    void exportJsonHoldsTheSameRows() {
        const LoadResult loaded = loadPath(logdir_.toStdString());
        QVERIFY(loaded.ok());
        const Table table = computeKernelStats(*loaded.profile).table;
        const Run r = cli({"export", "kernel_stats", logdir_, "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc["tool"].toString(), QString("kernel_stats"));
        const QJsonArray rows = doc["rows"].toArray();
        QCOMPARE(rows.size(), qsizetype(table.rowCount()));
        QVERIFY(rows.size() > 3);
        const int occ = table.columnIndex("Occurrences");
        for (qsizetype i = 0; i < rows.size(); ++i)
            QCOMPARE(qint64(rows[i].toObject()["Occurrences"].toDouble()),
                     qint64(table.number(size_t(i), size_t(occ))));
    }

    void exportMemoryProfileJson() {
        const LoadResult loaded = loadPath(logdir_.toStdString());
        QVERIFY(loaded.ok());
        const MemoryProfile memory = computeMemoryProfile(*loaded.profile);
        const MemorySeries* s = memory.find("GPU_1_bfc");
        QVERIFY(s);
        const Run r =
            cli({"export", "memory_profile", logdir_, "--memory-id", "GPU_1_bfc", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc["tool"].toString(), QString("memory_profile"));
        QCOMPARE(doc["memory_id"].toString(), QString("GPU_1_bfc"));
        QCOMPARE(doc["memory_ids"].toArray().size(), qsizetype(memory.series.size()));
        const QJsonObject summary = doc["summary"].toObject();
        QCOMPARE(qint64(summary["peak_memory_usage_bytes"].toDouble()),
                 qint64(s->summary.peakBytesInUse));
        QCOMPARE(qint64(summary["peak_time_ps"].toDouble()), qint64(s->summary.peakTimePs));
        QCOMPARE(qint64(summary["allocations"].toDouble()), qint64(s->summary.allocations));
        // The synthetic allocator reserves no stack: 0, not null; its free memory is recorded.
        QCOMPARE(summary["stack_reservation_bytes"].toDouble(), 0.0);
        QVERIFY(summary["free_memory_bytes"].toDouble() > 0);
        const QJsonArray timeline = doc["timeline"].toArray();
        QCOMPARE(timeline.size(), qsizetype(s->records.size()));
        const QJsonObject first = timeline[0].toObject();
        QCOMPARE(qint64(first["time_ps"].toDouble()), qint64(s->records[0].timePs));
        QCOMPARE(qint64(first["heap_bytes"].toDouble()), qint64(s->records[0].heapAllocatedBytes));
        QCOMPARE(doc["breakdown"].toArray().size(), qsizetype(s->breakdown.rowCount()));
    }

    void exportMemoryProfileWithoutAllocatorEvents() {
        fixtures::FixtureSpace space;
        space.addPlane(1, "/host:CPU").addLine(1, "main", 1000).add("step", 0, 1000);
        const QString path = dir_.path() + "/no_memory.xplane.pb";
        QVERIFY(fixtures::writeFile(path, space.encode()));
        const Run csv = cli({"export", "memory_profile", path, "--csv", "-"});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY(csv.err.contains("no data for memory_profile"));
        QCOMPARE(csv.out, csvOf(memoryBreakdownHeader()));
        const Run json = cli({"export", "memory_profile", path, "--json", "-"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(json.out).object();
        QVERIFY(doc["memory_id"].isNull());
        QVERIFY(doc["summary"].isNull());
        QCOMPARE(doc["memory_ids"].toArray().size(), 0);
        const Run unknown =
            cli({"export", "memory_profile", path, "--memory-id", "GPU_0_bfc", "--csv", "-"});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY(unknown.err.contains("the profile has no allocator events"));
    }

    void generateWritesALogDir() {
        const QString out = dir_.path() + "/generated";
        const Run r =
            cli({"generate", "--events", "3000", "--hosts", "2", "--out", out, "--run", "r"});
        QCOMPARE(r.exitCode, 0);
        const Discovery d = discoverProfiles(out.toStdString());
        QVERIFY2(d.ok(), d.error.c_str());
        QCOMPARE(d.runs[0].name, std::string("r"));
        QCOMPARE(d.runs[0].hosts.size(), size_t(2));
    }

    void badInputGivesAMessageAndAnExitCode() {
        const struct {
            QStringList args;
            int exitCode;
            const char* message;
        } cases[] = {
            {{}, 2, "no command"},
            {{"frobnicate"}, 2, "unknown command"},
            {{"info", dir_.path() + "/missing"}, 1, "missing"},
            {{"export", "pie_stats", logdir_, "--csv", dir_.path() + "/x.csv"}, 2, "unknown tool"},
            {{"export", "kernel_stats", logdir_}, 2, "missing --csv OUT or --json OUT"},
            {{"export", "kernel_stats", logdir_, "--csv", "a", "--json", "b"}, 2, "one of"},
            {{"export", "kernel_stats", logdir_, "--include-idle", "--csv", "-"},
             2,
             "unknown option '--include-idle' for kernel_stats"},
            {{"export", "kernel_stats", logdir_, "--csv", dir_.path() + "/no/such/dir/x.csv"},
             1,
             "cannot write"},
            {{"export", "memory_profile", logdir_, "--memory-id", "GPU_7_bfc", "--csv", "-"},
             1,
             "unknown memory id 'GPU_7_bfc' (the profile has: GPU_0_bfc, GPU_1_bfc)"},
            {{"export", "memory_profile", logdir_, "--memory-id"}, 2, "--memory-id needs a value"},
            {{"bench", "stats", "--events", "99999999999999999999999"}, 2, "usage"},
            {{"bench", "frobnicate"}, 2, "unknown benchmark 'frobnicate'"},
            {{"bench"}, 2, "no benchmark named"},
            {{"generate", "--events", "-5", "--out", dir_.path() + "/g"}, 2, "--events"},
        };
        for (const auto& c : cases) {
            const Run r = cli(c.args);
            QVERIFY2(r.exitCode == c.exitCode, qPrintable(c.args.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains(c.message), qPrintable(c.args.join(' ') + ": " + r.err));
        }
        QCOMPARE(cli({"--version"}).out.trimmed(), QByteArray("stepscope-cli " STEPSCOPE_VERSION));
    }

    // The headless benchmarks run in stepscope-cli and stepscope-bench alike; those that paint
    // only in stepscope-bench, and the CLI says so in one line.
    void benchesLiveWhereTheHelpSays() {
        const QString bench = QStringLiteral(STEPSCOPE_BENCH);
        for (const char* painting : {"timeline", "memory"}) {
            const Run r = cli({"bench", painting, "--events-list", "0"});
            QCOMPARE(r.exitCode, 1);
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY2(r.err.contains(QByteArray("stepscope-bench ") + painting), r.err.constData());
            // stepscope-bench runs it: here its own usage error on the bad size.
            const Run b = cli({painting, "--events-list", "0"}, 0, bench);
            QCOMPARE(b.exitCode, 2);
            QVERIFY2(b.err.contains(QByteArray("bench ") + painting), b.err.constData());
        }
        for (const QString& program : {QStringLiteral(STEPSCOPE_CLI), bench}) {
            const QStringList args = program == bench
                                         ? QStringList{"stats", "--events", "0"}
                                         : QStringList{"bench", "stats", "--events", "0"};
            const Run r = cli(args, 0, program);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("usage"), r.err.constData());
        }
        // The CLI's help lists the headless benchmarks, then the painting ones under
        // stepscope-bench; stepscope-bench's lists all of them as its own.
        const QByteArray help = cli({"bench", "--help"}).out;
        const qsizetype where = help.indexOf("in stepscope-bench");
        QVERIFY2(where > 0, help.constData());
        for (const char* headless : {"  load ", "  stats ", "  overview ", "  diff ", "  kineto ",
                                     "  reopen ", "  capture "}) {
            QVERIFY2(help.indexOf(headless) > 0 && help.indexOf(headless) < where, headless);
        }
        QVERIFY(help.indexOf("  timeline ") > where);
        QVERIFY(help.indexOf("  memory ") > where);
        const Run all = cli({"--help"}, 0, bench);
        QCOMPARE(all.exitCode, 0);
        QVERIFY(!all.out.contains("in stepscope-bench"));
        for (const char* name : {"  load ", "  timeline ", "  memory ", "  capture "})
            QVERIFY2(all.out.contains(name), name);
    }

    // `bench load` times each stage of the fastest load of each thread count: the stages the
    // loader reports, in the order it runs them, which together make up the whole load.
    void benchLoadTimesEachStage() {
        const Run r = cli({"bench", "load", "--events-list", "30000", "--threads-list", "1,2"});
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), qsizetype(2));
        const QStringList expected = {"Opening worker0",
                                      "Reading lines",
                                      "Reading events",
                                      "Building columns",
                                      "Sorting events",
                                      "Building columns",
                                      "Decoding stats",
                                      "Joining launches to kernels",
                                      "Done"};
        for (const QByteArray& line : lines) {
            const QJsonObject run = QJsonDocument::fromJson(line).object();
            QVERIFY2(!run.isEmpty(), line.constData());
            QStringList names;
            double total = 0, totalCpu = 0, decode = 0;
            for (const QJsonValue& v : run.value("stages").toArray()) {
                const QJsonObject stage = v.toObject();
                names << stage.value("stage").toString();
                QVERIFY(stage.value("seconds").toDouble(-1) >= 0);
                QVERIFY(stage.value("cpu_seconds").toDouble(-1) >= 0);
                total += stage.value("seconds").toDouble();
                totalCpu += stage.value("cpu_seconds").toDouble();
                if (names.back() == "Reading events") decode = stage.value("seconds").toDouble();
            }
            QCOMPARE(names, expected);
            // The stages split the load's wall and CPU time exactly (they are printed in full,
            // the load's figures to 0.1 ms). Decoding 30K events takes over a millisecond: a stage
            // that never closed would leave it at 0 and give its time to the last.
            const double load = run.value("load_seconds").toDouble();
            const double cpu = run.value("cpu_seconds").toDouble();
            QVERIFY2(std::abs(total - load) <= 0.001,
                     qPrintable(QString("stages %1 s, load %2 s").arg(total).arg(load)));
            QVERIFY2(std::abs(totalCpu - cpu) <= 0.001,
                     qPrintable(QString("stages %1 s of CPU, load %2 s").arg(totalCpu).arg(cpu)));
            QVERIFY2(decode > 0, line.constData());
        }
    }

    // The load benches print the huge page choice (model/HugePages.h): STEPSCOPE_HUGE_PAGES=1 or
    // =0 decides, another value is ignored, and without one a process asks for 4 KiB pages
    // exactly where the kernel reports free pages (its page_reporting_order reads 0 to 10).
    void benchesReportTheHugePageChoice() {
        QFile order("/sys/module/page_reporting/parameters/page_reporting_order");
        bool isNumber = false;
        const int reported =
            order.open(QIODevice::ReadOnly) ? order.readAll().trimmed().toInt(&isNumber) : -1;
        const bool reporting = isNumber && reported >= 0 && reported <= 10;
        const QString machine = reporting ? "page_reporting" : "default";
        const struct {
            const char* env; // nullptr: unset
            bool use;
            QString by;
        } cases[] = {{"1", true, "STEPSCOPE_HUGE_PAGES"},
                     {"0", false, "STEPSCOPE_HUGE_PAGES"},
                     {"yes", !reporting, machine},
                     {nullptr, !reporting, machine}};
        const auto restore = qScopeGuard([] { qunsetenv("STEPSCOPE_HUGE_PAGES"); });
        for (const auto& c : cases) {
            if (c.env)
                qputenv("STEPSCOPE_HUGE_PAGES", c.env);
            else
                qunsetenv("STEPSCOPE_HUGE_PAGES");
            const Run r = cli({"bench", "reopen", "--events-list", "20000"});
            QCOMPARE(r.exitCode, 0);
            const QJsonObject pages =
                QJsonDocument::fromJson(r.out.trimmed()).object().value("huge_pages").toObject();
            QVERIFY2(!pages.isEmpty(), r.out.constData());
            QCOMPARE(pages.value("use").toBool(!c.use), c.use);
            QCOMPARE(pages.value("chosen_by").toString(), c.by);
        }
    }

private:
    QTemporaryDir dir_;
    QString logdir_;
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
