#pragma once
// The isolation probe's symlink escapes. The file API runs as root and follows symlinks, so
// the question is not whether B may name A's path (files.read and friends) but whether B can
// reach it through a link in its own home: B links to A's marker, A's probe folder and a file
// A owns, then reads, lists, archives and overwrites through the links, and creates, moves out
// and deletes files in A's folder through the folder link, and uploads (multipart) onto its link
// to a file of A's and into its link to A's home (checkPair). With the admin channel,
// root creates a file only root reads in a folder only root enters under /tmp, and the first
// user reads it by its path and through a link (checkRootFile). Links and files are verified
// first and removed afterwards (the root file at once after the reads; a cancel in between
// leaves that folder, which holds only the probe's random marker).

#include "probing/probecalls.h"
#include "probing/probejudgement.h"

#include <QCoreApplication>

#include <memory>

namespace sandscope {

struct ProbeContext;
struct ProbePair;

class ProbeSymlinkChecks {
    Q_DECLARE_TR_FUNCTIONS(ProbeSymlinkChecks)
public:
    explicit ProbeSymlinkChecks(ProbeContext &probe);

    // One step of ProbeSteps (after ProbeFileChecks::setUp made A's markers); calls next().
    void checkPair(const std::shared_ptr<ProbePair> &pair);
    // Server-wide (files.read.root, files.read.root-symlink), as the first user; needs
    // ProbeOptions::hasAdmin (without it both are INFO, "not run").
    void checkRootFile();

    // The shell line that makes `link` point at `target` (replacing nothing) and says so.
    static QString linkCommand(const QString &target, const QString &link);
    // What A's file holds after B's write through the link: Observed when it has B's text.
    static probe::Effect writeEffect(const protocol::HttpResponse &ownRead, const QString &bText);
    // The same for a file B's upload would create: a file that is not there did not change.
    static probe::Effect uploadEffect(const protocol::HttpResponse &ownRead, const QString &bText);

private:
    void attempt(const std::shared_ptr<ProbePair> &pair, const probe::Precondition &links,
        const probe::Precondition &target, const Evidence &linkEvidence);

    ProbeContext &m_probe;
};

} // namespace sandscope
