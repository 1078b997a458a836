#pragma once

#include <QColor>
#include <span>
#include <string_view>
#include <vector>

#include "model/Profile.h"

namespace stepscope {

// Colours of event boxes: one per name, picked by a hash of the name's text, so that the same
// kernel has the same colour in every profile and every session. The palette holds mid-light
// tones that dark text reads well on.
class EventPalette {
public:
    explicit EventPalette(const Profile& profile);

    QColor colorOf(EventIndex e) const { return QColor::fromRgb(byMetadata_[metadata_[e]]); }
    QRgb rgbOfMetadata(uint32_t meta) const { return byMetadata_[meta]; }
    static QRgb colorForName(std::string_view name);
    static QColor textColor() { return QColor(0x1F, 0x23, 0x28); }

private:
    std::span<const uint32_t> metadata_;
    std::vector<QRgb> byMetadata_;
};

} // namespace stepscope
