#include "model/pytorch/ExternalIdJoin.h"

#include <algorithm>

namespace stepscope {

std::vector<uint32_t> joinByExternalId(std::span<const IdSpan> ops,
                                       std::span<const IdSpan> launches) {
    // The ops by key, each key's in the order given.
    std::vector<uint32_t> byKey(ops.size());
    for (uint32_t i = 0; i < ops.size(); ++i) byKey[i] = i;
    std::stable_sort(byKey.begin(), byKey.end(),
                     [&](uint32_t a, uint32_t b) { return ops[a].key < ops[b].key; });
    std::vector<uint32_t> joined(launches.size(), kNoJoinedOp);
    for (size_t l = 0; l < launches.size(); ++l) {
        const IdSpan& launch = launches[l];
        for (auto it =
                 std::lower_bound(byKey.begin(), byKey.end(), launch.key,
                                  [&](uint32_t op, uint64_t key) { return ops[op].key < key; });
             it != byKey.end() && ops[*it].key == launch.key; ++it)
            if (opEnclosesLaunch(ops[*it].start, ops[*it].end, launch.start, launch.end)) {
                joined[l] = *it;
                break;
            }
    }
    return joined;
}

} // namespace stepscope
