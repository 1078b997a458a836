#include "bench/HugePageReport.h"

#include "model/HugePages.h"
#include "model/Json.h"

namespace stepscope::bench {

std::string hugePageReport() {
    const HugePageChoice& c = hugePageChoice();
    const char* by = c.source == HugePageSource::Default         ? "default"
                     : c.source == HugePageSource::PageReporting ? "page_reporting"
                     : c.source == HugePageSource::Environment   ? "STEPSCOPE_HUGE_PAGES"
                                                                 : "none";
    JsonWriter w;
    w.beginObject().field("use", c.use).field("chosen_by", by).endObject();
    return w.take();
}

} // namespace stepscope::bench
