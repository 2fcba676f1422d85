#pragma once
// The files page's read-only indicator for themes without "object-locked"/"object-unlocked".

#include <QColor>
#include <QIcon>

namespace sandscope {

// A padlock painted in `colour` at 16, 22, 32 and 48 pixels: closed, or with the shackle
// swung open.
QIcon paintedLockIcon(bool locked, const QColor &colour);

} // namespace sandscope
