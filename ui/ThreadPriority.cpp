#include "ui/ThreadPriority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace stepscope {

void lowerThisThreadPriority() {
    constexpr int kLowestPriority = 19; // the largest nice value
    ::setpriority(PRIO_PROCESS, pid_t(::syscall(SYS_gettid)), kLowestPriority);
}

} // namespace stepscope
