#include "util/englishplurals.h"

#include <QCoreApplication>
#include <QTranslator>

namespace {
QTranslator *pluralTranslator = nullptr;

void installEnglishPluralsAtStartup()
{
    EnglishPlurals::install();
}
} // namespace

// Runs in every QCoreApplication's constructor (also QApplication's and the test runners').
Q_COREAPP_STARTUP_FUNCTION(installEnglishPluralsAtStartup)

bool EnglishPlurals::install()
{
    if (pluralTranslator)
        return true;
    auto *translator = new QTranslator(QCoreApplication::instance());
    if (!translator->load(QStringLiteral(":/sandscope/translations/sandscope_en.qm"))) {
        delete translator;
        return false;
    }
    QCoreApplication::installTranslator(translator);
    pluralTranslator = translator;
    QObject::connect(translator, &QObject::destroyed, [] { pluralTranslator = nullptr; });
    return true;
}

bool EnglishPlurals::installed()
{
    return pluralTranslator != nullptr;
}
