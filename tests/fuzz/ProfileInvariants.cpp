#include "tests/fuzz/ProfileInvariants.h"

#include <cstdlib>

namespace stepscope::fuzz {

void requireProfileInvariants(const Profile& p) {
    for (size_t t = 0; t < p.tracks().size(); ++t)
        for (uint32_t d = 0; d < p.tracks()[t].depthCount; ++d) {
            const EventRange er = p.eventsAt(uint32_t(t), d);
            for (EventIndex e = er.begin; e < er.end; ++e) {
                if (p.end(e) < p.start(e) || p.start(e) < 0 || p.end(e) > p.durationPs())
                    std::abort();
                if (e > er.begin && p.start(e) < p.end(e - 1)) std::abort();
                for (const StatValue& s : p.eventStats(e)) (void)s.format(p.strings());
                (void)p.name(e);
                if (p.memoryEvents().find(e)) (void)p.memoryEvent(e);
            }
        }
    for (const Flow& f : p.flows())
        if (f.launch >= p.eventCount() || f.target >= p.eventCount()) std::abort();
}

} // namespace stepscope::fuzz
