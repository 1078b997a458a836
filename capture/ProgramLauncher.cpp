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
#include <ctime>
#include <filesystem>
#include <thread>

extern char** environ;

namespace stepscope::capture {

namespace fs = std::filesystem;

namespace {

std::string localTimestamp() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y_%m_%d_%H_%M_%S", &tm);
    return text;
}

std::string signalName(int sig) {
    const char* name = sigabbrev_np(sig);
    return name ? std::string("SIG") + name : "signal " + std::to_string(sig);
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
    result.runName = o.runName.empty() ? localTimestamp() : o.runName;
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
        {"CUDA_INJECTION64_PATH", o.injectionLibrary}, {"STEPSCOPE_CUPTI_DIR", records.string()}};
    if (!o.cuptiLibrary.empty()) added.emplace_back("NVTX_INJECTION64_PATH", o.cuptiLibrary);
    if (!o.kinds.empty()) added.emplace_back("STEPSCOPE_CUPTI_KINDS", o.kinds);
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
    int execError = 0;
    const bool failed = ::read(pipeFds[0], &execError, sizeof execError) == sizeof execError;
    ::close(pipeFds[0]);

    int status = 0;
    bool sentStop = false;
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) break;
        const auto elapsed = std::chrono::steady_clock::now() - start;
        const bool timeUp =
            o.stopAfterMs > 0 && elapsed >= std::chrono::milliseconds(o.stopAfterMs);
        if (!sentStop && (progress.cancelled() || timeUp)) {
            ::kill(pid, SIGTERM); // the injection library flushes on SIGTERM
            sentStop = true;
        }
        progress.report("Running " + o.argv.front(), 0.0);
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
    result.run = writeCaptureRun(files, o.logDir, result.runName);
    fs::remove_all(records, ec);
    if (!result.run.ok()) result.error = result.run.error;
    return result;
}

} // namespace stepscope::capture
