#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace stepscope {

// The null distribution of the Mann-Whitney U statistic for samples of m and n values without
// ties: P(U <= u) for every u, counted over all C(m+n, m) orderings with the recurrence
// p(m,n,u) = n/(m+n) p(m,n-1,u-m) + m/(m+n) p(m-1,n,u) (the largest value is a candidate's, which
// beats all m baseline values, or a baseline's). O(m·n·mn): build it once per pair of sizes.
class RankSumNull {
public:
    RankSumNull(size_t m, size_t n);
    size_t m() const { return m_; }
    size_t n() const { return n_; }
    // P(U <= u); 0 for u < 0, 1 for u >= mn.
    double cdf(long long u) const;

private:
    size_t m_, n_;
    std::vector<double> cdf_; // mn + 1 entries
};

// Whether two samples (per-step times of one op in two runs) differ in location, without assuming
// any distribution: the Wilcoxon-Mann-Whitney rank-sum test, the Hodges-Lehmann estimate of the
// shift (the median of all candidate - baseline differences) and its distribution-free
// confidence interval (Lehmann, "Nonparametrics", 1975, ch. 2; Hollander & Wolfe, ch. 4.3):
//   U        = #pairs (x_i, y_j) with y_j > x_i, plus half of the pairs that tie
//   p-value  two-sided; exact (RankSumNull) when `exactNull` matches the sizes and no values tie,
//            else the normal approximation with the tie-corrected variance and a continuity
//            correction of 1/2
//   interval [D(k), D(mn+1-k)] of the sorted differences D (1-based), k the largest integer with
//            P(U <= k-1) <= (1 - confidence)/2 under the untied null (exact when `exactNull`
//            matches the sizes, else floor(mn/2 - z·sqrt(mn(m+n+1)/12))); with ties this is
//            conservative, as usual
// With too few values no interval reaches the confidence (k < 1; with 2 values each the smallest
// two-sided p-value is 1/3): `interval` is then empty.
struct ShiftTest {
    double u = 0;      // Mann-Whitney U of the candidate sample
    double pValue = 1; // two-sided
    bool exact = false;
    double shift = 0; // Hodges-Lehmann estimate, candidate - baseline, in the samples' unit
    std::optional<std::pair<double, double>> interval; // at `confidence`; none when too few
};

// The largest sample size for which callers build a RankSumNull (31 x 31 probability rows of at
// most 901 entries); beyond it the normal approximation is accurate.
inline constexpr size_t kExactLimit = 30;

// Both samples need at least one value; `confidence` in (0, 1). `exactNull`: the null for
// (base.size(), candidate.size()), or null to use the normal approximation.
ShiftTest shiftTest(const std::vector<double>& base, const std::vector<double>& candidate,
                    double confidence, const RankSumNull* exactNull);

// The median of `values` (the mean of the middle two for an even count); NaN when empty.
double median(std::vector<double> values);

} // namespace stepscope
