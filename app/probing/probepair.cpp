#include "probepair.h"

#include <QRandomGenerator>

namespace sandscope {

namespace probe {

QString randomToken(int length)
{
    static const QLatin1String alphabet("abcdefghijklmnopqrstuvwxyz0123456789");
    QString token;
    for (int i = 0; i < length; ++i)
        token.append(alphabet.at(int(QRandomGenerator::global()->bounded(alphabet.size()))));
    return token;
}

} // namespace probe

using probe::randomToken;

ProbePair::ProbePair(const QString &targetId, const QString &actorId)
    : target(targetId)
    , actor(actorId)
    , token(randomToken(10))
{
    a.userId = target;
    a.sessionId = QStringLiteral("sandscope-probe-a-") + token;
    b.userId = actor;
    b.sessionId = QStringLiteral("sandscope-probe-b-") + token;
}

void ProbePair::placeMarkers(const QString &targetHome)
{
    home = targetHome;
    probeDirName = QStringLiteral("sandscope-probe-") + token;
    probeDir = home + QLatin1Char('/') + probeDirName;
    chatDirName = QStringLiteral("chat-sandscope-probe-") + token;
    chatDir = home + QLatin1Char('/') + chatDirName;
    markerName = QStringLiteral("marker-") + randomToken(10) + QStringLiteral(".txt");
    markerContent = QStringLiteral("sandscope-marker-") + randomToken(16);
    markerPath = probeDir + QLatin1Char('/') + markerName;
    chatMarkerPath = chatDir + QLatin1Char('/') + markerName;
    moveMe = probeDir + QStringLiteral("/move-me.txt");
    movedTo = probeDir + QStringLiteral("/moved-by-b.txt");
    deleteMe = probeDir + QStringLiteral("/delete-me.txt");
    shellVictim = probeDir + QStringLiteral("/rm-me.txt");
    chatShellVictim = chatDir + QStringLiteral("/rm-me.txt");
    writeTarget = probeDir + QStringLiteral("/write-target.txt");
    uploadTarget = probeDir + QStringLiteral("/upload-target.txt");
}

} // namespace sandscope
