#include "model/ParallelFor.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace stepscope {

unsigned availableCores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    return std::max(1u, std::thread::hardware_concurrency());
}

size_t parallelWorkers(size_t count, unsigned threads) {
    return std::min<size_t>(threads ? threads : availableCores(), count);
}

void parallelFor(size_t count, unsigned threads, const std::function<void(size_t)>& fn) {
    parallelForWorkers(count, threads, [&fn](size_t i, size_t) { fn(i); });
}

void parallelForWorkers(size_t count, unsigned threads,
                        const std::function<void(size_t, size_t)>& fn) {
    const size_t workers = parallelWorkers(count, threads);
    if (workers <= 1) {
        for (size_t i = 0; i < count; ++i) fn(i, 0);
        return;
    }
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::exception_ptr failure;
    std::mutex failureMutex;
    auto work = [&](size_t worker) {
        for (size_t i; !stop.load(std::memory_order_relaxed) &&
                       (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) {
            try {
                fn(i, worker);
            } catch (...) {
                const std::lock_guard lock(failureMutex);
                if (!failure) failure = std::current_exception();
                stop = true;
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (size_t t = 1; t < workers; ++t) {
        try {
            pool.emplace_back(work, t);
        } catch (const std::system_error&) {
            break; // no more threads to be had: the ones running share the items
        }
    }
    work(0);
    for (std::thread& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

} // namespace stepscope
