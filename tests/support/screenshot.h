#pragma once
// SANDSCOPE_SCREENSHOT=FILE.png: the GUI suites that take pictures save them there, each with
// its suffix before the .png (nothing without the variable).

#include <QString>
#include <QTest>
#include <QWidget>

namespace sandscope::test {

inline void screenshot(QWidget *widget, const QString &suffix)
{
    if (!qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT"))
        return;
    QTest::qWait(200);
    QString path = qEnvironmentVariable("SANDSCOPE_SCREENSHOT");
    path.replace(QLatin1String(".png"), suffix + QLatin1String(".png"));
    widget->grab().save(path);
}

} // namespace sandscope::test
