#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <vector>

namespace stepscope {

// The cores this process may run on (its CPU affinity, so `taskset -c 0` gives 1), at least 1.
unsigned availableCores();

// Runs fn(i) for every i in [0, count) on up to `threads` threads, the caller's included (0 means
// availableCores()). Items are handed out in order from a shared counter, so uneven items balance
// and the lowest items start first. Returns once every item has run. If an item throws, the
// remaining items are skipped and the first exception is rethrown here, on the caller's thread.
void parallelFor(size_t count, unsigned threads, const std::function<void(size_t)>& fn);

// How many workers parallelFor and parallelForWorkers use for `count` items on `threads`.
size_t parallelWorkers(size_t count, unsigned threads);

// parallelFor that also tells each item which worker runs it, a number below parallelWorkers():
// a worker runs its items one after another, so it can keep buffers of its own for them.
void parallelForWorkers(size_t count, unsigned threads,
                        const std::function<void(size_t item, size_t worker)>& fn);

// Merges sorted runs [bounds[k], bounds[k + 1]) pairwise, on up to `threads` threads, until one
// is left.
template <class It, class Less>
void mergeRuns(std::vector<It> bounds, unsigned threads, Less less) {
    while (bounds.size() > 2) {
        const size_t pairs = (bounds.size() - 1) / 2;
        parallelFor(pairs, threads, [&](size_t k) {
            std::inplace_merge(bounds[2 * k], bounds[2 * k + 1], bounds[2 * k + 2], less);
        });
        std::vector<It> merged;
        for (size_t k = 0; k < bounds.size(); k += 2) merged.push_back(bounds[k]);
        if (merged.back() != bounds.back()) merged.push_back(bounds.back());
        bounds = std::move(merged);
    }
}

// Sorts [first, last) by `less`. A range that is a few ascending runs (rows gathered stream by
// stream, each in time order) is merged run by run, in n log(runs); any other goes to std::sort.
template <class It, class Less> void sortRuns(It first, It last, Less less) {
    constexpr size_t kMaxRuns = 256;
    std::vector<It> runs{first};
    for (It i = first; i != last; ++i) {
        const It next = std::next(i);
        if (next == last || !less(*next, *i)) continue;
        if (runs.size() == kMaxRuns) {
            std::sort(first, last, less);
            return;
        }
        runs.push_back(next);
    }
    runs.push_back(last);
    mergeRuns(std::move(runs), 1, less);
}

// Sorts [first, last) by `less` on up to `threads` threads: equal parts are sorted in parallel
// (sortRuns), then merged pairwise. Not stable; with a strict total order the result is that of
// std::sort.
template <class It, class Less> void parallelSort(It first, It last, unsigned threads, Less less) {
    if (threads == 0) threads = availableCores();
    const size_t n = size_t(std::distance(first, last));
    constexpr size_t kMinPart = 1 << 16;
    const size_t parts = std::max<size_t>(1, std::min<size_t>(threads, n / kMinPart));
    std::vector<It> bounds;
    for (size_t k = 0; k <= parts; ++k) bounds.push_back(first + ptrdiff_t(n * k / parts));
    parallelFor(parts, threads, [&](size_t k) { sortRuns(bounds[k], bounds[k + 1], less); });
    mergeRuns(std::move(bounds), threads, less);
}

} // namespace stepscope
