#include "monospacefont.h"

#include <QFontDatabase>
#include <QFontInfo>

namespace sandscope {

namespace {

// Scalable faces with complete fixed-width coverage, in the order terminals tend to prefer them.
const char *const wellKnownFixedFamilies[] = {"DejaVu Sans Mono", "Liberation Mono", "Noto Mono",
    "Ubuntu Mono", "Hack", "Source Code Pro", "Cousine", "FreeMono"};

QStringList installedFamilies()
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
    return QFontDatabase::families();
#else
    return QFontDatabase().families();
#endif
}

bool familyIsFixedPitch(const QString &family)
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
    return QFontDatabase::isFixedPitch(family);
#else
    return QFontDatabase().isFixedPitch(family);
#endif
}

} // namespace

QString chooseFixedPitchFamily(
    const QStringList &families, const std::function<bool(const QString &)> &isFixedPitch)
{
    for (const char *known : wellKnownFixedFamilies) {
        const QString family = QString::fromLatin1(known);
        if (families.contains(family, Qt::CaseInsensitive) && isFixedPitch(family))
            return family;
    }
    for (const QString &family : families) {
        if (isFixedPitch(family))
            return family;
    }
    return {};
}

QFont monospaceFont()
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (QFontInfo(font).fixedPitch())
        return font;
    const QString family = chooseFixedPitchFamily(installedFamilies(), familyIsFixedPitch);
    if (!family.isEmpty())
        font.setFamily(family);
    font.setStyleHint(QFont::TypeWriter);
    font.setFixedPitch(true);
    return font;
}

void substituteGenericMonospace()
{
    static bool done = false;
    if (done)
        return;
    done = true;
    const QString generic = QStringLiteral("Monospace");
    if (QFontInfo(QFont(generic)).fixedPitch())
        return;
    const QString family = monospaceFont().family();
    if (!family.isEmpty() && family != generic)
        QFont::insertSubstitution(generic, family);
}

} // namespace sandscope
