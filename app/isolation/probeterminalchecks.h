#pragma once
// The isolation probe's terminal checks. A opens a terminal; B asks for it by its id over HTTP
// (TerminalLookup), then attaches to it over the WebSocket with B's own identity and the key,
// and types a line that prints a token with the account it runs as and creates a file in the
// home of whoever runs it: B reading that output from A's account is TerminalRead, the file
// appearing in A's home is TerminalWrite. First A attaches to a terminal of its own with the
// same line and sees its output, so a refusal B gets is a refusal, not a broken socket. Both
// terminals and the file are removed afterwards. One step of ProbeSteps; calls next().

#include "probing/probecalls.h"

#include <QCoreApplication>

#include <memory>

namespace sandscope {

struct ProbeContext;
struct ProbePair;

class ProbeTerminalChecks {
    Q_DECLARE_TR_FUNCTIONS(ProbeTerminalChecks)
public:
    explicit ProbeTerminalChecks(ProbeContext &probe);

    void checkPair(const std::shared_ptr<ProbePair> &pair);

    // The line B types into a terminal: creates `fileName` in the home of whoever runs it,
    // then runs `printCommand` (which prints a token and the account).
    static QString typedLine(const QString &printCommand, const QString &fileName);

private:
    // A's own terminal shows the line's output: the socket works for A.
    void attachOwn(
        const std::shared_ptr<ProbePair> &pair, const QString &targetId, const Evidence &opened);
    void attachAsB(const std::shared_ptr<ProbePair> &pair, const QString &targetId,
        const probe::Precondition &own, const QVector<Evidence> &setup);
    // A new terminal of A's in session `sessionId`, removed at the end; `done` gets its id.
    void openTerminal(const std::shared_ptr<ProbePair> &pair, const QString &sessionId,
        const QString &note, std::function<void(const QString &id, const ProbeReply &)> done);

    ProbeContext &m_probe;
};

} // namespace sandscope
