#include "model/StatValue.h"

#include "model/NumberFormat.h"

namespace stepscope {

std::string StatValue::format(const StringPool& strings) const {
    switch (type) {
    case StatType::Int64:
        return std::to_string(static_cast<int64_t>(rawBits()));
    case StatType::Uint64:
        return std::to_string(rawBits());
    case StatType::Double:
        return shortestNumber(asDouble());
    case StatType::Str:
    case StatType::Ref:
        return std::string(strings.get(asString()));
    case StatType::Bytes:
        return "<" + std::to_string(strings.get(asString()).size()) + " bytes>";
    }
    return {};
}

} // namespace stepscope
