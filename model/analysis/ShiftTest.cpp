#include "model/analysis/ShiftTest.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stepscope {

RankSumNull::RankSumNull(size_t m, size_t n)
    : m_(m)
    , n_(n) {
    const size_t top = m * n;
    // prob[j][u]: P(U = u) for sizes (i, j) of the row being built; rows i = 0..m.
    std::vector<std::vector<double>> previous(n + 1), current(n + 1);
    for (size_t j = 0; j <= n; ++j) previous[j] = {1.0}; // i = 0: U is always 0
    for (size_t i = 1; i <= m; ++i) {
        current[0] = {1.0}; // j = 0: U is always 0
        for (size_t j = 1; j <= n; ++j) {
            std::vector<double> p(i * j + 1, 0.0);
            const double wy = double(j) / double(i + j), wx = double(i) / double(i + j);
            // Largest value from the candidate (size j): it beats all i baseline values.
            for (size_t u = 0; u < current[j - 1].size(); ++u) p[u + i] += wy * current[j - 1][u];
            // Largest value from the baseline: it adds nothing to U.
            for (size_t u = 0; u < previous[j].size(); ++u) p[u] += wx * previous[j][u];
            current[j] = std::move(p);
        }
        std::swap(previous, current);
    }
    const std::vector<double>& density = previous[n];
    cdf_.assign(top + 1, 0.0);
    double sum = 0;
    for (size_t u = 0; u <= top; ++u) {
        sum += u < density.size() ? density[u] : 0.0;
        cdf_[u] = std::min(1.0, sum);
    }
}

double RankSumNull::cdf(long long u) const {
    if (u < 0) return 0;
    if (size_t(u) >= cdf_.size()) return 1;
    return cdf_[size_t(u)];
}

double median(std::vector<double> values) {
    if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
    const size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + mid, values.end());
    if (values.size() % 2) return values[mid];
    const double upper = values[mid];
    const double lower = *std::max_element(values.begin(), values.begin() + mid);
    return lower + (upper - lower) / 2;
}

namespace {

double normalUpperTail(double z) {
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}

// z with P(Z > z) = tail, by bisection on erfc (60 halvings: far below double's resolution).
double normalQuantileUpper(double tail) {
    double lo = 0, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
        const double mid = (lo + hi) / 2;
        (normalUpperTail(mid) > tail ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

} // namespace

ShiftTest shiftTest(const std::vector<double>& base, const std::vector<double>& candidate,
                    double confidence, const RankSumNull* exactNull) {
    ShiftTest result;
    const size_t m = base.size(), n = candidate.size();
    if (m == 0 || n == 0) return result;
    const double mn = double(m) * double(n);

    // U, the pairwise differences, and the tie groups of the pooled sample.
    std::vector<double> differences;
    differences.reserve(m * n);
    double u = 0;
    for (double x : base)
        for (double y : candidate) {
            differences.push_back(y - x);
            u += y > x ? 1.0 : y == x ? 0.5 : 0.0;
        }
    result.u = u;
    std::vector<double> pooled(base);
    pooled.insert(pooled.end(), candidate.begin(), candidate.end());
    std::sort(pooled.begin(), pooled.end());
    double tieTerm = 0; // sum of t^3 - t over tie groups
    bool ties = false;
    for (size_t i = 0; i < pooled.size();) {
        size_t j = i;
        while (j < pooled.size() && pooled[j] == pooled[i]) ++j;
        const double t = double(j - i);
        if (t > 1) ties = true;
        tieTerm += t * t * t - t;
        i = j;
    }

    const double alphaHalf = (1 - confidence) / 2;
    const bool haveNull = exactNull && exactNull->m() == m && exactNull->n() == n;
    // p-value: exact without ties, else normal with the tie-corrected variance.
    if (haveNull && !ties) {
        result.exact = true;
        const long long uu = std::llround(u); // an integer without ties
        const double lower = exactNull->cdf(uu), upper = 1 - exactNull->cdf(uu - 1);
        result.pValue = std::min(1.0, 2 * std::min(lower, upper));
    } else {
        const double N = double(m + n);
        const double variance = mn / 12.0 * ((N + 1) - tieTerm / (N * (N - 1)));
        const double sd = std::sqrt(std::max(0.0, variance));
        // Every value equal (sd 0): no evidence of any shift.
        const double z = sd > 0 ? std::max(0.0, std::fabs(u - mn / 2) - 0.5) / sd : 0.0;
        result.pValue = std::min(1.0, 2 * normalUpperTail(z));
    }
    // Interval: the order statistics of the differences that the untied null of U gives
    // (ties make it conservative); it exists only when the sizes allow the confidence.
    long long k = 0; // the interval is [D(k), D(mn+1-k)], 1-based; none when k < 1
    if (haveNull) {
        while (k < (long long)(m * n) && exactNull->cdf(k) <= alphaHalf) ++k;
        // Now P(U <= k-1) <= alphaHalf < P(U <= k): k is the largest such integer.
    } else {
        const double sd = std::sqrt(mn * double(m + n + 1) / 12.0);
        k = (long long)std::floor(mn / 2 - normalQuantileUpper(alphaHalf) * sd);
    }
    const bool haveInterval = k >= 1 && 2 * k <= (long long)(m * n);
    // The order statistics needed (the median's one or two, the interval's two) by successive
    // nth_element calls in increasing position: each leaves every larger difference after its
    // position, so the next one is selected among those. O(mn) on average instead of a sort.
    const size_t count = m * n, mid = count / 2;
    std::vector<size_t> positions = {mid};
    if (count % 2 == 0) positions.push_back(mid - 1);
    if (haveInterval) {
        positions.push_back(size_t(k - 1));
        positions.push_back(count - size_t(k));
    }
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    size_t from = 0;
    for (size_t pos : positions) {
        std::nth_element(differences.begin() + std::ptrdiff_t(from),
                         differences.begin() + std::ptrdiff_t(pos), differences.end());
        from = pos + 1;
    }
    result.shift = count % 2 ? differences[mid]
                             : differences[mid - 1] + (differences[mid] - differences[mid - 1]) / 2;
    if (haveInterval)
        result.interval = {differences[size_t(k - 1)], differences[count - size_t(k)]};
    return result;
}

} // namespace stepscope
