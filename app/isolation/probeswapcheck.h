#pragma once
// The isolation probe's swap races (FilesReadSwap, FilesWriteSwap): where the server checks a path
// and then uses it, a link swapped in between escapes the check. B makes a file of its own, starts
// a shell loop that keeps replacing it (atomically, mv -T) with a symlink to A's marker and back,
// and meanwhile reads it through the file API a bounded number of times: rounds of roundSize
// reads at once, roundGapMs apart, at most attemptCount in all, so that the reads span many
// swaps also when the machine is loaded and one swap takes longer than a round. A's
// marker in an answer is a FAIL (at which attempt); a refusal of the link at use with no A's
// data a PASS; only B's own file in every answer is ERROR (the race was not won, which proves
// nothing), never PASS. The loop is ended and B's folder removed afterwards (the API removes
// the links in it, not what they point at). One step of ProbeSteps; calls next().
//
// The write race (checkWritePair): the server writes a file as root, then runs `sudo chown`
// and `sudo chmod g+w` on the path, all of which follow a link swapped in meanwhile. A makes a
// file only A may write (mode 600, its marker) and looks at it (owner, mode, content); B writes
// its own swapped file in the same rounds, and A looks again after each round. A's file
// changed is a FAIL (it is not put back: the probe folder holding it is removed at the end),
// a refusal with A's file unchanged a PASS, neither an ERROR that names the attempts.

#include "probing/probecalls.h"

#include <QCoreApplication>

#include <functional>
#include <memory>

namespace sandscope {

struct ProbeContext;
struct ProbePair;

class ProbeSwapCheck {
    Q_DECLARE_TR_FUNCTIONS(ProbeSwapCheck)
public:
    static constexpr int attemptCount = 200;
    static constexpr int roundSize = 10;
    static constexpr int roundGapMs = 40;

    explicit ProbeSwapCheck(ProbeContext &probe);

    void checkPair(const std::shared_ptr<ProbePair> &pair);
    void checkWritePair(const std::shared_ptr<ProbePair> &pair);

    // Makes `dir`/swap a file holding `ownText` (run first, and waited for).
    static QString setupCommand(const QString &dir, const QString &ownText);
    // Swaps `dir`/swap between a symlink to `target` and a file holding `ownText`, `rounds`
    // times; `dir`/swap exists throughout.
    static QString loopCommand(
        const QString &dir, const QString &target, const QString &ownText, int rounds);

private:
    using LoopStarted = std::function<void(
        const QString &dir, const QVector<Evidence> &setup, const QVector<ProbeCall> &end)>;
    // B's folder with its own file and the loop that swaps it for a link to `target`; calls
    // `started` once the loop runs (`end` ends it), else reports `check` as ERROR.
    void startLoop(const std::shared_ptr<ProbePair> &pair, CheckId check, const QString &target,
        const QVector<Evidence> &earlier, LoopStarted started);
    // Calls `then(true)` once `runningFile` exists (the loop has begun), `then(false)` after
    // `triesLeft` looks 100 ms apart.
    void whenRunning(const Identity &identity, const QString &runningFile, int triesLeft,
        std::function<void(bool)> then);
    // One round of reads; judges once a round returned A's data or a refusal, or after the
    // last. `end` ends the loop (also part of the pair's cleanup).
    void attempt(const std::shared_ptr<ProbePair> &pair, const QString &swapPath,
        const QVector<Evidence> &setup, const QVector<ProbeCall> &end,
        QVector<ProbeReply> earlier = {});
    struct WriteRace {
        QString swapPath;
        QString target; // A's file
        probe::FileState before;
        QVector<Evidence> setup;
        QVector<ProbeCall> end;
    };
    // One round of writes, then A's look; judges once A's file changed or a write was refused,
    // or after the last round.
    void attemptWrites(const std::shared_ptr<ProbePair> &pair, const WriteRace &race,
        QVector<ProbeReply> earlier = {});

    ProbeContext &m_probe;
};

} // namespace sandscope
