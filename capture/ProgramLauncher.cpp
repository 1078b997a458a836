#include "capture/ProgramLauncher.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "capture/LiveRecordCounts.h"
#include "model/LogDir.h"

extern char** environ;

namespace stepscope::capture {

namespace fs = std::filesystem;

namespace {

std::string signalName(int sig) {
    const char* name = sigabbrev_np(sig);
    return name ? std::string("SIG") + name : "signal " + std::to_string(sig);
}

// How long a stopped program may take to exit before it is killed.
constexpr std::chrono::seconds kStopGrace{5};

// Whether a process of group `group` still runs: a zombie nobody reaps (an orphan in a container
// whose init does not reap) does not count. From /proc/<pid>/stat: "pid (comm) state ppid pgrp".
bool groupRuns(pid_t group) {
    if (::kill(-group, 0) != 0) return false;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        std::ifstream stat(entry.path() / "stat");
        std::string text;
        if (!stat || !std::getline(stat, text)) continue;
        const size_t close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream fields(text.substr(close + 1));
        char state = 0;
        long ppid = 0, pgrp = 0;
        if (fields >> state >> ppid >> pgrp && pgrp == group && state != 'Z') return true;
    }
    return false;
}

// `text` as one shell word: as is where it holds only safe characters, otherwise in single quotes.
std::string shellWord(const std::string& text) {
    if (!text.empty() &&
        text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_./-+=:,@%") == std::string::npos)
        return text;
    std::string quoted = "'";
    for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// Where a failed conversion left the records, and the command that converts them later.
std::string keptRecordsText(const std::string& records, const std::string& logDir,
                            const std::string& run) {
    return ". The records are kept in " + records +
           "; once that is fixed, convert them with: stepscope-cli capture --records " +
           shellWord(records) + "/*.rec --logdir " + shellWord(logDir) + " --run " + shellWord(run);
}

} // namespace

std::string cudaDriverProblem() {
    void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        return std::string("no CUDA driver on this machine (libcuda.so.1 cannot be loaded") +
               (why ? ": " + std::string(why) : std::string()) + ")";
    }
    dlclose(handle);
    return {};
}

LaunchResult launchAndCapture(const LaunchOptions& o, const Progress& progress) {
    LaunchResult result;
    if (o.argv.empty() || o.argv.front().empty()) {
        result.error = "no program given";
        return result;
    }
    if (o.logDir.empty()) {
        result.error = "no log directory given";
        return result;
    }
    if (o.injectionLibrary.empty() || ::access(o.injectionLibrary.c_str(), R_OK) != 0) {
        result.error = "the CUPTI injection library is missing (" +
                       (o.injectionLibrary.empty() ? std::string("not built: this build found no "
                                                                 "CUDA toolkit with CUPTI")
                                                   : o.injectionLibrary) +
                       ")";
        return result;
    }
    if (o.requireDriver) {
        if (std::string problem = cudaDriverProblem(); !problem.empty()) {
            result.error = problem;
            return result;
        }
    }
    result.runName = o.runName.empty() ? localTimeRunName() : o.runName;
    const fs::path records =
        fs::path(o.logDir) / "plugins" / "profile" / (".stepscope-records-" + result.runName);
    std::error_code ec;
    fs::create_directories(records, ec);
    if (ec) {
        result.error = "cannot create " + records.string() + " (" + ec.message() + ")";
        return result;
    }

    // The child reports a failed exec through a close-on-exec pipe: EOF means it started.
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        result.error = std::string("pipe: ") + std::strerror(errno);
        return result;
    }
    std::vector<char*> argv;
    for (const std::string& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    // The environment is built before fork: the child only calls async-signal-safe functions.
    std::vector<std::pair<std::string, std::string>> added = {
        {"CUDA_INJECTION64_PATH", o.injectionLibrary},
        {"NVTX_INJECTION64_PATH", o.injectionLibrary},
        {"STEPSCOPE_CUPTI_DIR", records.string()}};
    if (!o.kinds.empty()) added.emplace_back("STEPSCOPE_CUPTI_KINDS", o.kinds);
    if (o.delayMs > 0) {
        const auto startAt =
            std::chrono::system_clock::now() + std::chrono::milliseconds(o.delayMs);
        added.emplace_back("STEPSCOPE_CUPTI_START_NS",
                           std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              startAt.time_since_epoch())
                                              .count()));
    }
    added.insert(added.end(), o.environment.begin(), o.environment.end());
    std::vector<std::string> envText;
    for (char** e = environ; *e; ++e) {
        const std::string_view entry(*e);
        const std::string_view name = entry.substr(0, entry.find('='));
        if (std::none_of(added.begin(), added.end(),
                         [name](const auto& a) { return a.first == name; }))
            envText.emplace_back(entry);
    }
    for (const auto& [name, value] : added) envText.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (std::string& e : envText) envp.push_back(e.data());
    envp.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        result.error = std::string("cannot start a process: ") + std::strerror(errno);
        return result;
    }
    if (pid == 0) {
        ::close(pipeFds[0]);
        // A process group of its own, so a stop reaches every process it starts (torchrun's
        // workers, a launcher script's children).
        ::setpgid(0, 0);
        int error = 0;
        if (!o.workingDirectory.empty() && ::chdir(o.workingDirectory.c_str()) != 0)
            error = errno;
        else {
            ::execvpe(argv[0], argv.data(), envp.data());
            error = errno;
        }
        (void)!::write(pipeFds[1], &error, sizeof error);
        ::_exit(127);
    }
    ::close(pipeFds[1]);
    ::setpgid(pid, pid); // also here: whichever of the two runs first
    int execError = 0;
    const bool failed = ::read(pipeFds[0], &execError, sizeof execError) == sizeof execError;
    ::close(pipeFds[0]);

    // Runs until the program and every process of its group have ended: the records of a
    // worker that outlives its parent are read only once it is done writing them. A stop sends
    // SIGTERM to the group, and SIGKILL kStopGrace later to whatever still runs.
    int status = 0;
    bool sentStop = false, sentKill = false, programDone = false;
    std::chrono::steady_clock::time_point stopSent, killSent;
    const auto start = std::chrono::steady_clock::now();
    const auto recordingFrom = start + std::chrono::milliseconds(o.delayMs);
    LiveRecordCounts live(records.string());
    std::string recorded = recordCountsText(live.update());
    auto lastCount = start;
    for (;;) {
        if (!programDone) {
            const pid_t done = ::waitpid(pid, &status, WNOHANG);
            if (done == pid || (done < 0 && errno != EINTR)) programDone = true;
        }
        // The group is gone when no process has its id (ESRCH); the program itself was reaped.
        if (programDone && !groupRuns(pid)) break;
        const auto now = std::chrono::steady_clock::now();
        const bool timeUp =
            o.stopAfterMs > 0 && now - recordingFrom >= std::chrono::milliseconds(o.stopAfterMs);
        if (!sentStop && (progress.cancelled() || timeUp)) {
            ::kill(-pid, SIGTERM); // the injection library flushes on SIGTERM
            sentStop = true;
            stopSent = now;
        } else if (sentStop && !sentKill && now - stopSent > kStopGrace) {
            ::kill(-pid, SIGKILL); // it ignored SIGTERM; what it flushed so far is kept
            sentKill = true;
            killSent = now;
            result.notes.push_back(o.argv.front() + " did not stop within " +
                                   std::to_string(kStopGrace.count()) +
                                   " s of SIGTERM and was killed");
        } else if (sentKill && now - killSent > std::chrono::seconds(2)) {
            break; // SIGKILL cannot be ignored: whatever remains is not ours to wait for
        }
        if (now - lastCount >= std::chrono::seconds(1)) {
            recorded = recordCountsText(live.update());
            lastCount = now;
        }
        const std::string soFar =
            now < recordingFrom
                ? "recording starts in " +
                      std::to_string(
                          std::chrono::ceil<std::chrono::seconds>(recordingFrom - now).count()) +
                      " s"
                : recorded;
        progress.report((programDone ? "Waiting for the processes " + o.argv.front() + " started"
                                     : "Running " + o.argv.front()) +
                            ": " + soFar,
                        0.0);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (failed) {
        fs::remove_all(records, ec);
        result.error = execError == ENOENT
                           ? "program not found: " + o.argv.front()
                           : "cannot start " + o.argv.front() + ": " + std::strerror(execError);
        return result;
    }
    if (WIFEXITED(status)) {
        result.exitCode = WEXITSTATUS(status);
        if (result.exitCode != 0)
            result.notes.push_back(o.argv.front() + " exited with code " +
                                   std::to_string(result.exitCode));
    } else if (WIFSIGNALED(status)) {
        result.signal = WTERMSIG(status);
        result.notes.push_back(
            o.argv.front() + " was killed by " + signalName(result.signal) +
            (sentStop ? " (stopped early)" : "; what was recorded until then is kept"));
    }
    result.cancelled = sentStop && progress.cancelled();

    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(records, ec))
        if (entry.path().extension() == ".rec") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        fs::remove_all(records, ec);
        result.error = o.argv.front() +
                       " recorded nothing: it made no CUDA calls, or CUPTI could not start in it "
                       "(its output says why)";
        return result;
    }
    // The records are the only copy of the capture: they go only once every profile of the run
    // is written and reads back (writeCaptureRun checks both).
    result.run = writeCaptureRun(files, o.logDir, result.runName);
    if (!result.run.ok()) {
        result.error =
            result.run.error + keptRecordsText(records.string(), o.logDir, result.runName);
        return result;
    }
    fs::remove_all(records, ec);
    return result;
}

} // namespace stepscope::capture
