#include "model/analysis/OpProfile.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace stepscope {

namespace {

class TreeBuilder {
public:
    explicit TreeBuilder(const Roofline& r)
        : r_(r) {
        out_.nodes.push_back({"All ops", {}, {}, -1});
    }

    // The child of `parent` named `name`, made on first use.
    uint32_t child(uint32_t parent, const std::string& name) {
        const auto [it, inserted] = index_.try_emplace({parent, name}, uint32_t(out_.nodes.size()));
        if (inserted) {
            out_.nodes.push_back({name, {}, {}, -1});
            out_.nodes[parent].children.push_back(it->second);
        }
        return it->second;
    }

    // Adds a cell as a leaf under the path of nodes `path` (names below the root).
    void add(const std::vector<std::string>& path, const std::string& leafName,
             const RooflineCell& cell) {
        std::vector<uint32_t> chain{0};
        for (const std::string& name : path) chain.push_back(child(chain.back(), name));
        const uint32_t leaf = uint32_t(out_.nodes.size());
        out_.nodes.push_back({leafName, {}, {}, int64_t(&cell - r_.cells.data())});
        out_.nodes[chain.back()].children.push_back(leaf);
        chain.push_back(leaf);
        for (uint32_t n : chain) out_.nodes[n].sum.add(r_, cell);
    }

    OpProfile finish() {
        for (OpProfileNode& n : out_.nodes)
            std::stable_sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
                const OpProfileNode &x = out_.nodes[a], &y = out_.nodes[b];
                if (x.sum.timePs != y.sum.timePs) return x.sum.timePs > y.sum.timePs;
                return x.name < y.name;
            });
        return std::move(out_);
    }

private:
    const Roofline& r_;
    OpProfile out_;
    std::map<std::pair<uint32_t, std::string>, uint32_t> index_;
};

std::vector<std::string> splitPath(std::string_view path) {
    std::vector<std::string> parts;
    size_t begin = 0;
    while (begin <= path.size()) {
        const size_t slash = path.find('/', begin);
        const size_t end = slash == std::string_view::npos ? path.size() : slash;
        if (end > begin) parts.emplace_back(path.substr(begin, end - begin));
        if (slash == std::string_view::npos) break;
        begin = slash + 1;
    }
    return parts;
}

} // namespace

OpProfile opProfile(const Roofline& r, OpProfileGrouping grouping, int32_t step) {
    TreeBuilder tree(r);
    const bool severalDevices = r.devices.size() > 1;
    for (const RooflineCell* c : r.cellsOf(step)) {
        const RooflineOp& op = r.ops[c->op];
        std::vector<std::string> path;
        if (severalDevices) path.push_back(r.devices[op.device].device);
        std::string leaf = op.name;
        if (grouping == OpProfileGrouping::ByProgram) {
            path.push_back(programOf(op));
            path.push_back(op.category);
            // PyTorch rows are an operator and its input shapes: the leaf says both.
            if (op.program.empty() && !op.shape.empty()) leaf += " " + op.shape;
        } else {
            std::vector<std::string> parts = splitPath(op.frameworkOp);
            if (parts.empty()) {
                path.push_back("(no framework op)");
            } else {
                // A PyTorch path ends in the operator itself, which is the leaf.
                if (op.program.empty() && parts.back() == op.name) {
                    parts.pop_back();
                    if (!op.shape.empty()) leaf += " " + op.shape;
                }
                path.insert(path.end(), parts.begin(), parts.end());
            }
        }
        tree.add(path, leaf, *c);
    }
    return tree.finish();
}

} // namespace stepscope
