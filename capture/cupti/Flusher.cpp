#include "capture/cupti/Flusher.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

#include "capture/cupti/ApiRecording.h"
#include "capture/cupti/InjectionState.h"

namespace stepscope::capture::injection {

namespace {

// cuptiActivityFlushAll(0) hands over every buffer whose records are all complete, full or not
// (cupti_activity.h: "Default flush can be done at a regular interval in a separate thread");
// cuptiActivityFlushPeriod would hand over full buffers only.
constexpr int kFlushPeriodMs = 1000;

// What CUPTI holds, cut short or not (at exit, on a signal), and whatever the writer holds.
void flushEverything() {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    const LockedState s;
    writeThreadNames(*s);
    if (s->writer) s->writer->flush();
}

// The periodic flush: completed records only (a forced flush would cut running kernels short,
// their end time unknown), and the thread names recorded since.
void flushCompleted() {
    if (state().stopped) return;
    cuptiActivityFlushAll(0);
    const LockedState s;
    writeThreadNames(*s);
    if (s->writer) s->writer->flush();
}

void flushAtExit() {
    if (state().stopped.exchange(true)) return;
    flushEverything();
}

// ---- signals: the handler asks the flusher thread, waits a bounded time, then chains.
constexpr int kSignals[] = {SIGSEGV, SIGABRT, SIGTERM};
constexpr int kFlushWaitMs = 3000; // below the launcher's grace period before SIGKILL
struct sigaction previousAction[NSIG];
int requestPipe[2] = {-1, -1}; // handler -> flusher
int donePipe[2] = {-1, -1};    // flusher -> handler (non-blocking read end)
pid_t owner = 0;               // a forked child has no flusher thread: it does not ask

int64_t monotonicMs() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t); // async-signal-safe
    return int64_t(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}

// Waits for a handler's request, flushing what CUPTI completed every kFlushPeriodMs meanwhile.
void flusherLoop() {
    int64_t next = monotonicMs() + kFlushPeriodMs;
    for (;;) {
        const int64_t now = monotonicMs();
        if (now >= next) {
            flushCompleted();
            next = monotonicMs() + kFlushPeriodMs;
            continue;
        }
        pollfd p{requestPipe[0], POLLIN, 0};
        const int r = ::poll(&p, 1, int(next - now));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return;
        if (r == 0) continue; // the period is up
        char c = 0;
        const ssize_t n = ::read(requestPipe[0], &c, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        flushEverything();
        (void)!::write(donePipe[1], &c, 1);
    }
}

void askFlusherAndWait() {
    if (requestPipe[1] < 0 || getpid() != owner) return;
    char drain[16];
    while (::read(donePipe[0], drain, sizeof drain) > 0) {
    }
    const char c = 1;
    if (::write(requestPipe[1], &c, 1) != 1) return;
    const int64_t deadline = monotonicMs() + kFlushWaitMs;
    for (int64_t left = kFlushWaitMs; left > 0; left = deadline - monotonicMs()) {
        pollfd p{donePipe[0], POLLIN, 0};
        const int r = ::poll(&p, 1, int(left));
        if (r > 0 || (r < 0 && errno != EINTR)) return;
    }
}

extern "C" void onSignal(int sig, siginfo_t* info, void* context) {
    const int savedErrno = errno;
    askFlusherAndWait();
    const struct sigaction& old = previousAction[sig];
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) {
        old.sa_sigaction(sig, info, context);
    } else if (old.sa_handler == SIG_DFL) {
        // Die as the program would have: the signal is blocked here, so it is delivered with
        // the default action as soon as this handler returns.
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, nullptr);
        raise(sig);
    } else if (old.sa_handler != SIG_IGN) {
        old.sa_handler(sig);
    }
    errno = savedErrno;
}

// ---- fork: a child forked (without exec) from a process that started CUDA cannot use CUDA
// (the driver is not fork-safe), and what it holds of records (the writer's pending records,
// CUPTI's buffers) is its parent's, which the parent writes. So the child writes nothing: its
// copy of the record file is closed unwritten and recording stops in it (no exit flush: CUPTI
// would hand it copies of the parent's buffers). A child that execs (subprocess, torchrun,
// multiprocessing's spawn) loads this library afresh and records as <pid>.rec. No lock is taken
// across the fork (a CUPTI thread in a buffer callback holds the state's lock while CUDA's own
// fork handlers may wait on CUPTI's): the child, alone, gets a fresh lock, since the one it
// inherited may be held by a thread it does not have, and its writer's copy of the file is closed
// and the writer set aside, never written or freed, since such a thread may have left its buffers
// half changed (kept reachable, so leak checkers do not report it).
RecordFileWriter* abandonedWriter = nullptr;

void afterForkInChild() {
    State& s = state();
    s.stopped = true;
    new (&s.mutex) std::mutex;
    if (s.writer) {
        s.writer->abandon();
        abandonedWriter = s.writer.release();
    }
}

} // namespace

void startFlushing() {
    std::atexit(flushAtExit);
    if (const int e = ::pthread_atfork(nullptr, nullptr, afterForkInChild); e != 0)
        say(std::string("cannot watch for fork (") + std::strerror(e) +
            "); a child forked without exec could write its parent's records again");
    if (::pipe2(requestPipe, O_CLOEXEC) != 0 || ::pipe2(donePipe, O_CLOEXEC) != 0 ||
        ::fcntl(donePipe[0], F_SETFL, O_NONBLOCK) != 0) {
        say("cannot create the flush pipes; records are written only as buffers fill and at "
            "exit");
        return;
    }
    // The flusher starts with every signal blocked, so no handler ever runs on it.
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    try {
        std::thread(flusherLoop).detach();
    } catch (const std::exception&) {
        say("cannot start the flusher thread; records are written only as buffers fill and at "
            "exit");
        pthread_sigmask(SIG_SETMASK, &saved, nullptr);
        return;
    }
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    owner = getpid();
    for (const int sig : kSignals) {
        struct sigaction old {};
        if (sigaction(sig, nullptr, &old) != 0) continue;
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue; // stays ignored
        previousAction[sig] = old;
        struct sigaction sa {};
        sa.sa_sigaction = onSignal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, nullptr);
    }
}

} // namespace stepscope::capture::injection
