#include "model/analysis/Level.h"

namespace stepscope {

std::string_view levelKey(Level level) {
    switch (level) {
    case Level::High:
        return "high";
    case Level::Moderate:
        return "moderate";
    case Level::Info:
        return "info";
    }
    return {};
}

} // namespace stepscope
