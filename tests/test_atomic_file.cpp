// Replacing a file whole or not at all (model/AtomicFile.h): a new file is written, an existing
// one replaced with its permission bits kept, and a write that fails part-way (the file size limit
// of a child process stands for a full disk, and works as root) leaves the old file as it was and
// no temporary file, with a message that names the file and the system's reason.
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/AtomicFile.h"
#include "tests/fixtures/FileSizeLimit.h"

using namespace stepscope;
namespace fs = std::filesystem;

namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> filesIn(const std::string& folder) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void writesANewFile() {
        const std::string folder = dir_.filePath("new").toStdString();
        fs::create_directory(folder);
        const std::string path = folder + "/t.csv";
        QCOMPARE(writeFileAtomically(path, "a,b\n1,2\n"), std::string());
        QCOMPARE(readText(path), std::string("a,b\n1,2\n"));
        QCOMPARE(filesIn(folder), std::vector<std::string>{"t.csv"});
        QCOMPARE(writeFileAtomically(path, ""), std::string()); // an empty file is a file
        QVERIFY(fs::exists(path));
        QCOMPARE(fs::file_size(path), uintmax_t(0));
    }

    void replacesWholeAndKeepsPermissions() {
        const std::string path = dir_.filePath("private.json").toStdString();
        std::ofstream(path) << "{\"old\": true}\n";
        QCOMPARE(::chmod(path.c_str(), 0600), 0);
        QCOMPARE(writeFileAtomically(path, "{\"new\": true}\n"), std::string());
        QCOMPARE(readText(path), std::string("{\"new\": true}\n"));
        struct stat st {};
        QCOMPARE(::stat(path.c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 07777), 0600);
    }

    // 64 KiB over a file, with files limited to 4 KiB: the write fails part-way, as on a disk
    // that fills.
    void failedWriteLeavesTheOldFile() {
        const std::string folder = dir_.filePath("full").toStdString();
        fs::create_directory(folder);
        const std::string path = folder + "/t.csv";
        std::ofstream(path) << "the previous export\n";
        const std::string big(64 * 1024, 'x');
        const std::string error =
            testing::runWithFileSizeLimit(4096, [&] { return writeFileAtomically(path, big); });
        QCOMPARE(error, "cannot write " + path + ": " + std::strerror(EFBIG));
        QCOMPARE(readText(path), std::string("the previous export\n"));
        QCOMPARE(filesIn(folder), std::vector<std::string>{"t.csv"}); // no temporary file left
        // Under the limit the same call succeeds.
        QCOMPARE(testing::runWithFileSizeLimit(
                     4096, [&] { return writeFileAtomically(path, "short\n"); }),
                 std::string());
        QCOMPARE(readText(path), std::string("short\n"));
    }

    void missingFolderIsNamed() {
        const std::string path = dir_.filePath("no-such-folder/t.csv").toStdString();
        QCOMPARE(writeFileAtomically(path, "x"),
                 "cannot write " + path + ": " + std::strerror(ENOENT));
    }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "test_atomic_file.moc"
