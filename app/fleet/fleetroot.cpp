#include "fleetroot.h"

#include "util/shellquote.h"

#include <QFile>

namespace sandscope::fleetroot {

QString script(const QStringList &arguments, int asUid, int asGid)
{
    static const QString program = [] {
        QFile file(QStringLiteral(":/sandscope/fleet/fleetroot.py"));
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    }();
    QStringList words;
    if (asUid > 0)
        words << QStringLiteral("--as") << QString::number(asUid) << QString::number(asGid);
    for (const QString &argument : arguments)
        words << shell::quote(argument);
    // Through the server's own account (0.11.x) the script is not root: sudo -n makes it so.
    return QStringLiteral("p=python3; [ \"$(id -u)\" = 0 ] || p='sudo -n python3'\n"
                          "$p - %1 <<'SANDSCOPE_PY'\n%2\nSANDSCOPE_PY\n")
        .arg(words.join(QLatin1Char(' ')), program);
}

} // namespace sandscope::fleetroot
