#include "runnodedetails.h"

namespace sandscope {

QStringList RunNodeDetails::searchTexts() const
{
    QStringList texts;
    anySearchText([&texts](const QString &part) {
        texts.append(part);
        return false;
    });
    return texts;
}

} // namespace sandscope
