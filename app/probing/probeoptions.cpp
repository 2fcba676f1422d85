#include "probeoptions.h"

#include "server/connection.h"

#include <QCoreApplication>

namespace sandscope::probe {

bool checkUserIds(const QStringList &users, QString *why)
{
    QStringList seen;
    for (const QString &user : users) {
        QString invalid;
        if (!validateUserId(user, &invalid)) {
            *why = QCoreApplication::translate("ProbeOptions", "\"%1\" is not a valid user id: %2")
                       .arg(user, invalid);
            return false;
        }
        if (seen.contains(user)) {
            *why = QCoreApplication::translate("ProbeOptions", "\"%1\" is given twice.").arg(user);
            return false;
        }
        seen << user;
    }
    return true;
}

} // namespace sandscope::probe
