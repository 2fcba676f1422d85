#pragma once
// The font for commands, output, code and evidence: one whose glyphs really all have one width.
// QFontDatabase::FixedFont is whatever fontconfig calls "monospace"; on some machines that is a
// face fontconfig does not flag as mono-spaced (Noto Sans Mono), so Qt treats it as proportional.
// Terminal emulators choose among the families the font database marks fixed-pitch; so do we.

#include <QFont>
#include <QString>
#include <QStringList>

#include <functional>

namespace sandscope {

QFont monospaceFont();

// Makes the generic family "Monospace" (what QTermWidget asks for while it is built, before
// monospaceFont() is set on it) resolve to monospaceFont()'s family where fontconfig's
// monospace is not fixed-pitch, so no emulator is ever given a proportional face (QTermWidget
// prints "Using a variable-width font in the terminal." on stderr when it is). Idempotent.
void substituteGenericMonospace();

// The family monospaceFont() falls back to when the platform's fixed font is not fixed-pitch:
// the first well-known fixed-pitch face that is installed, else the first fixed-pitch family
// in `families`; empty when none of them is fixed-pitch.
QString chooseFixedPitchFamily(
    const QStringList &families, const std::function<bool(const QString &)> &isFixedPitch);

} // namespace sandscope
