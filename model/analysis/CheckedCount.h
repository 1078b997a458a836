#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>

namespace stepscope {

// Counts, FLOPs and bytes of the cost models (HloCostModel, TorchOpCost): nothing when unknown
// or when the value does not fit in int64 (a made-up shape can ask for more; no real program
// does), so an overflow is never undefined behaviour and never a wrapped, wrong number. Each
// operation gives nothing when an operand is nothing.
using Count = std::optional<int64_t>;

// op(a, b, &r): the __builtin_*_overflow family, true when the result does not fit.
template <typename Op> Count checked(Count a, Count b, Op op) {
    int64_t r = 0;
    if (!a || !b || op(*a, *b, &r)) return std::nullopt;
    return r;
}

inline Count times(Count a, Count b) {
    return checked(
        a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_mul_overflow(x, y, r); });
}
inline Count plus(Count a, Count b) {
    return checked(
        a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_add_overflow(x, y, r); });
}
inline Count minus(Count a, Count b) {
    return checked(
        a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_sub_overflow(x, y, r); });
}

// a x b x c x ... and a + b + c + ...
template <typename... More> Count times(Count a, Count b, Count c, More... more) {
    return times(times(a, b), c, more...);
}
template <typename... More> Count plus(Count a, Count b, Count c, More... more) {
    return plus(plus(a, b), c, more...);
}

// The product of sizes (1 for none); nothing when one is negative (XLA marks an unbounded
// dynamic dimension so; no tensor has one) or the product does not fit.
inline Count product(std::span<const int64_t> sizes) {
    Count n = 1;
    for (int64_t d : sizes) n = d < 0 ? std::nullopt : times(n, d);
    return n;
}

// A count recorded as a double (a profiler's "flops" arg), rounded; nothing when it is not a
// finite, non-negative number below 2^63 (converting a larger one to int64 is undefined).
inline Count countOf(double value) {
    if (!std::isfinite(value) || value < 0 || value >= 0x1p63) return std::nullopt;
    return int64_t(std::llround(value));
}

} // namespace stepscope
