#pragma once
// Everything one (A, B) pair of the isolation probe creates and learns: A is the target whose
// resources are probed, B the actor. A's markers get names with random tokens, so nothing the
// probe creates can be mistaken for A's own files, and its cleanup removes only them.

#include "probereport/probereport.h"
#include "probing/probejudgement.h"
#include "server/connection.h"

#include <QString>
#include <QVector>

namespace sandscope {

struct ProbePair {
    // The identities of A and B, each in a session of its own.
    ProbePair(const QString &targetId, const QString &actorId);
    // Names A's markers: a probe folder and a chat folder in A's `targetHome`, files in them.
    void placeMarkers(const QString &targetHome);

    QString target;
    QString actor;
    Identity a;
    Identity b;
    QString home;
    QString token;
    QString probeDirName;
    QString probeDir;
    QString chatDirName;
    QString chatDir;
    QString markerName;
    QString markerContent;
    QString markerPath;
    QString chatMarkerPath;
    QString moveMe;
    QString movedTo;
    QString deleteMe;
    QString shellVictim;
    QString chatShellVictim;
    QString writeTarget; // A's file B tries to overwrite through a symlink
    QString uploadTarget; // A's file B tries to upload onto through a symlink
    // B's folder of symlinks in its own home (filled by ProbeSymlinkChecks).
    QString linksDir;
    bool filesReady = false;
    probe::Precondition read;
    probe::Precondition list;
    probe::Precondition grep;
    probe::Precondition glob;
    probe::Precondition victims;
    QVector<Evidence> setupEvidence; // everything A did to prepare, in order
    // A's own requests that prove the preconditions, shown next to B's attempts.
    Evidence ownHome;
    Evidence ownFolder;
    Evidence ownRead;
    Evidence ownGrep;
    Evidence ownGlob;
    Evidence sessionCwd;

    QString processId;
    QString logPath;
    QString outputMarker;
    QString commandMarker;
    QString inputMarker;
    QString environMarker; // in the environment of A's process only
    probe::Precondition process;
    QVector<Evidence> processEvidence;
};

namespace probe {

// Lower-case letters and digits, for the names of everything the probe creates.
QString randomToken(int length);

} // namespace probe

} // namespace sandscope
