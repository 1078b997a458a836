#include "model/analysis/PieSlice.h"

#include <algorithm>

namespace stepscope {

namespace {
// The last `n` '/'-separated components of a path, with a leading "…/" when some were dropped.
std::string lastComponents(const std::string& path, size_t n) {
    size_t cut = path.size();
    for (size_t i = 0; i < n; ++i) {
        if (cut == 0 || cut == std::string::npos) return path;
        cut = path.rfind('/', cut - 1);
        if (cut == std::string::npos) return path;
    }
    return "…" + path.substr(cut);
}

size_t commonPrefix(const std::string& a, const std::string& b) {
    const size_t n = std::min(a.size(), b.size());
    size_t i = 0;
    while (i < n && a[i] == b[i]) ++i;
    return i;
}
} // namespace

void distinguishLegends(PieData& slices, size_t count, size_t extraChars) {
    count = std::min(count, slices.size());
    auto shown = [&](size_t i) -> const std::string& {
        return slices[i].legend.empty() ? slices[i].label : slices[i].legend;
    };
    std::vector<bool> done(count, false);
    for (size_t i = 0; i < count; ++i) {
        if (done[i]) continue;
        std::vector<size_t> group{i};
        for (size_t j = i + 1; j < count; ++j)
            if (!done[j] && shown(j) == shown(i)) group.push_back(j);
        for (size_t g : group) done[g] = true;
        if (group.size() < 2) continue;
        const bool paths = std::all_of(group.begin(), group.end(), [&](size_t g) {
            return slices[g].label.find('/') != std::string::npos;
        });
        std::vector<std::string> legends(group.size());
        if (paths) {
            // Op paths: the component that sets each apart (where it parts from the most similar
            // other), then the op's last two components: "replica_4/…/GatherV2/Cast".
            std::vector<std::vector<std::string>> comps(group.size());
            for (size_t k = 0; k < group.size(); ++k) {
                const std::string& label = slices[group[k]].label;
                for (size_t from = 0;;) {
                    const size_t slash = label.find('/', from);
                    comps[k].push_back(label.substr(from, slash - from));
                    if (slash == std::string::npos) break;
                    from = slash + 1;
                }
            }
            for (size_t k = 0; k < group.size(); ++k) {
                size_t d = 0;
                for (size_t o = 0; o < group.size(); ++o) {
                    if (o == k) continue;
                    size_t c = 0;
                    while (c < comps[k].size() && c < comps[o].size() && comps[k][c] == comps[o][c])
                        ++c;
                    d = std::max(d, c);
                }
                const std::vector<std::string>& c = comps[k];
                const size_t n = c.size();
                if (d >= n) {
                    legends[k] = slices[group[k]].label; // a prefix of another: no shorter form
                } else if (d + 3 >= n) {
                    legends[k] = lastComponents(slices[group[k]].label, n - d);
                } else {
                    legends[k] = (d > 0 ? "…/" : "") + c[d] + "/…/" + c[n - 2] + "/" + c[n - 1];
                }
            }
            // Whatever still reads the same shows in full.
            for (size_t a = 0; a < group.size(); ++a)
                for (size_t b = a + 1; b < group.size(); ++b)
                    if (legends[a] == legends[b]) {
                        legends[a] = slices[group[a]].label;
                        legends[b] = slices[group[b]].label;
                    }
        } else {
            // Other names (kernels): the short form, then the full name from where it starts
            // to differ from the others of the group (template arguments, usually).
            for (size_t k = 0; k < group.size(); ++k) {
                const std::string& label = slices[group[k]].label;
                size_t differ = 0;
                for (size_t o : group)
                    if (o != group[k])
                        differ = std::max(differ, commonPrefix(label, slices[o].label));
                std::string part = label.substr(std::min(differ, label.size()), extraChars);
                if (differ + extraChars < label.size()) part += "…";
                legends[k] = shown(group[k]) + " · " + (differ > 0 ? "…" : "") + part;
            }
        }
        for (size_t k = 0; k < group.size(); ++k) slices[group[k]].legend = legends[k];
    }
}

} // namespace stepscope
