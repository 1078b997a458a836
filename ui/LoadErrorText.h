#pragma once

#include <QString>

namespace stepscope {

// The first line a user reads when a load fails: what went wrong in plain words ("The file is
// cut short…", "Not a profile Stepscope can read…"), picked from the loader's technical message
// ("at byte 4: length 21703 of XSpace.planes runs past the end…"), which the banner shows
// second.
QString plainLoadError(const QString& technical);

} // namespace stepscope
