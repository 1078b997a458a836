#include "capture/cupti/InjectionState.h"

#include <pthread.h>

#include <cstdio>

namespace stepscope::capture::injection {

State& state() {
    static State* s = new State;
    return *s;
}

LockedState::LockedState()
    : state_(state()) {
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, &saved_);
    state_.mutex.lock();
}

LockedState::~LockedState() {
    state_.mutex.unlock();
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

void say(const std::string& text) {
    std::fprintf(stderr, "stepscope-cupti: %s\n", text.c_str());
}

std::string cuptiError(CUptiResult r) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    std::string s = text ? text : "unknown CUPTI error";
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        s += " (profiling is restricted to admin users: load the driver with "
             "NVreg_RestrictProfilingToAdminUsers=0, or run as root)";
    return s;
}

} // namespace stepscope::capture::injection
