#pragma once
// The isolation probe's shared places (SharedTmp): users share /tmp and /dev/shm. A's shell
// writes a marker file into each with the account's default umask, as a tool of an agent run
// would, and reads it back; B's shell then reads both. B reading the marker is a FAIL; the
// kernel's "Permission denied" a PASS. B also lists the other files A's account left readable
// for everyone there (by an agent run, say), named in the explanation. A's files are removed
// afterwards. One step of ProbeSteps; calls next().

#include "probing/probecalls.h"

#include <QCoreApplication>

#include <memory>

namespace sandscope {

struct ProbeContext;
struct ProbePair;

class ProbeSharedCheck {
    Q_DECLARE_TR_FUNCTIONS(ProbeSharedCheck)
public:
    explicit ProbeSharedCheck(ProbeContext &probe);

    void checkPair(const std::shared_ptr<ProbePair> &pair);

    // The places both users can write to.
    static QStringList places() { return {QStringLiteral("/tmp"), QStringLiteral("/dev/shm")}; }
    // A's marker file in `place`.
    static QString markerFile(const QString &place, const QString &token);

private:
    ProbeContext &m_probe;
};

} // namespace sandscope
