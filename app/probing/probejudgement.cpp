#include "probejudgement.h"

#include "util/shellquote.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace sandscope::probe {

namespace {

enum class Answer {
    Success, // 2xx
    Denied, // 403, or 400 naming the denial
    Hidden, // 404 for something that exists
    Unusable, // transport failure, 401, 5xx, other statuses
};

struct Classified {
    Answer answer;
    QString text; // for explanations
};

Classified classify(const protocol::HttpResponse &response)
{
    const QString detail = protocol::serverDetail(response.body);
    const QString quoted = detail.isEmpty() ? QString() : QStringLiteral(" (\"%1\")").arg(detail);
    if (response.status == 0) {
        const QString why = response.timedOut       ? QStringLiteral("timed out")
            : response.networkErrorString.isEmpty() ? QStringLiteral("no answer")
                                                    : response.networkErrorString;
        return {Answer::Unusable, QStringLiteral("the request got no HTTP answer: %1").arg(why)};
    }
    const int status = response.status;
    if (status >= 200 && status < 300)
        return {Answer::Success, QStringLiteral("HTTP %1").arg(status)};
    if (status == 401)
        return {Answer::Unusable, QStringLiteral("the server refused the API key (HTTP 401)")};
    if (status == 403)
        return {Answer::Denied, QStringLiteral("HTTP 403") + quoted};
    if (status == 400
        && (detail.contains(QLatin1String("Access denied"))
            || detail.contains(QLatin1String("X-User-Id is required"))))
        return {Answer::Denied, QStringLiteral("HTTP 400") + quoted};
    // The server runs a step as the user first (e.g. `sudo -u B mkdir -p` of the parent
    // folder before a write); when the kernel refuses the user that step, the request fails.
    if (status == 400 && detail.contains(QLatin1String("'sudo', '-u'"))
        && detail.contains(QLatin1String("returned non-zero exit status")))
        return {Answer::Denied, QStringLiteral("HTTP 400") + quoted};
    // The kernel refused the server the file (an OSError's text): e.g. an immutable file, which
    // not even root may write.
    if (status == 400
        && (detail.startsWith(QLatin1String("[Errno 1] Operation not permitted"))
            || detail.startsWith(QLatin1String("[Errno 13] Permission denied"))))
        return {Answer::Denied, QStringLiteral("HTTP 400") + quoted};
    if (status == 404)
        return {Answer::Hidden, QStringLiteral("HTTP 404") + quoted};
    if (status >= 500)
        return {Answer::Unusable, QStringLiteral("server error HTTP %1").arg(status) + quoted};
    return {Answer::Unusable, QStringLiteral("unexpected HTTP %1").arg(status) + quoted};
}

Judgement verdict(Verdict v, const QString &explanation)
{
    return Judgement {v, explanation};
}

Judgement preconditionFailed(const Precondition &precondition)
{
    return verdict(Verdict::Error,
        QStringLiteral("Precondition not met, so nothing was judged: %1").arg(precondition.why));
}

bool deniedByPermissions(const QString &output)
{
    return output.contains(QLatin1String("Permission denied"))
        || output.contains(QLatin1String("Operation not permitted"));
}

const QString sectionStart = QStringLiteral("@@sandscope-begin ");
const QString sectionEnd = QStringLiteral("@@sandscope-end ");

const QString accountKey = QStringLiteral("sandscope-account=");
const QString uidKey = QStringLiteral("sandscope-uid=");
const QString homeKey = QStringLiteral("sandscope-home=");

QString valueAfter(const QStringList &lines, const QString &key)
{
    for (const QString &line : lines) {
        const qsizetype at = line.indexOf(key);
        if (at >= 0)
            return line.mid(at + key.size()).trimmed();
    }
    return {};
}

QString revealedText(const protocol::HttpResponse &response, Disclosure kind, bool *parsed)
{
    QStringList parts;
    *parsed = true;
    switch (kind) {
    case Disclosure::Raw:
        // With its size: Qt 5's fromLatin1(QByteArray) stops at the first NUL, and a ZIP has
        // one before its first file name.
        return QString::fromLatin1(response.body.constData(), response.body.size());
    case Disclosure::Listing: {
        const Result<DirectoryListing> listing = protocol::parseListing(response.body);
        *parsed = listing.ok();
        for (const FileEntry &entry : listing.value.entries)
            parts << entry.name;
        break;
    }
    case Disclosure::FileText: {
        const Result<FileContent> content = protocol::parseFileRead(response);
        *parsed = content.ok();
        return content.value.isText ? content.value.text : QString::fromLatin1(content.value.bytes);
    }
    case Disclosure::GrepMatches: {
        const Result<GrepResult> grep = protocol::parseGrep(response.body);
        *parsed = grep.ok();
        for (const GrepMatch &match : grep.value.matches)
            parts << match.file + QLatin1Char(':') + match.content;
        break;
    }
    case Disclosure::GlobMatches: {
        const Result<GlobResult> glob = protocol::parseGlob(response.body);
        *parsed = glob.ok();
        for (const GlobMatch &match : glob.value.matches)
            parts << match.path;
        break;
    }
    case Disclosure::ProcessOutput: {
        const Result<ProcessSnapshot> snapshot = protocol::parseProcess(response.body);
        *parsed = snapshot.ok();
        for (const OutputChunk &chunk : snapshot.value.output)
            parts << chunk.data;
        break;
    }
    }
    return parts.join(QLatin1Char('\n'));
}

} // namespace

Judgement judgeDisclosure(const protocol::HttpResponse &response, Disclosure kind,
    const QString &marker, const Precondition &precondition)
{
    if (!precondition.met)
        return preconditionFailed(precondition);
    const Classified c = classify(response);
    switch (c.answer) {
    case Answer::Denied:
        return verdict(Verdict::Pass, QStringLiteral("Denied: %1.").arg(c.text));
    case Answer::Hidden:
        return verdict(Verdict::Pass,
            QStringLiteral("Hidden: %1 for something A has (A's own request found it).")
                .arg(c.text));
    case Answer::Unusable:
        return verdict(Verdict::Error, QStringLiteral("Inconclusive: %1.").arg(c.text));
    case Answer::Success:
        break;
    }
    bool parsed = false;
    const QString revealed = revealedText(response, kind, &parsed);
    if (!parsed)
        return verdict(Verdict::Error,
            QStringLiteral("Inconclusive: %1 but the body is not what the endpoint returns "
                           "(a proxy page?).")
                .arg(c.text));
    if (revealed.contains(marker))
        return verdict(Verdict::Fail,
            QStringLiteral("Reachable: the answer (%1) contains A's marker \"%2\".")
                .arg(c.text, marker));
    return verdict(Verdict::Pass,
        QStringLiteral("Filtered: %1 without any of A's data (A's own request found it).")
            .arg(c.text));
}

Judgement judgeSwapRace(const QVector<protocol::HttpResponse> &responses, const QString &marker,
    const Precondition &precondition)
{
    if (!precondition.met)
        return preconditionFailed(precondition);
    int own = 0;
    int refused = 0;
    int unusable = 0;
    QString refusal;
    for (int i = 0; i < responses.size(); ++i) {
        const protocol::HttpResponse &response = responses.at(i);
        const Classified c = classify(response);
        if (c.answer == Answer::Success) {
            bool parsed = false;
            const QString text = revealedText(response, Disclosure::FileText, &parsed);
            if (parsed && text.contains(marker))
                return verdict(Verdict::Fail,
                    QStringLiteral("Reachable: attempt %1 of %2 returned A's marker \"%3\" through "
                                   "the swapped link (%4).")
                        .arg(i + 1)
                        .arg(responses.size())
                        .arg(marker, c.text));
            ++(parsed ? own : unusable);
        } else if (c.answer == Answer::Denied || c.answer == Answer::Hidden) {
            ++refused;
            refusal = c.text;
        } else {
            ++unusable;
        }
    }
    const QString tally = QCoreApplication::translate("probe",
        "%n attempt(s): %1 returned B's own file, %2 refused, %3 unusable", nullptr,
        int(responses.size()))
                              .arg(own)
                              .arg(refused)
                              .arg(unusable);
    if (refused > 0)
        return verdict(Verdict::Pass,
            QStringLiteral("Denied at use: %1 (last refusal: %2), and none returned A's data.")
                .arg(tally, refusal));
    return verdict(Verdict::Error,
        QStringLiteral("Inconclusive: %1. The race was not won, which does not prove that no "
                       "window exists.")
            .arg(tally));
}

bool refused(const protocol::HttpResponse &response)
{
    const Answer answer = classify(response).answer;
    return answer == Answer::Denied || answer == Answer::Hidden;
}

QString FileState::describe() const
{
    if (!known)
        return QStringLiteral("not seen");
    return QStringLiteral("owner %1, mode %2, content \"%3\"").arg(owner, mode, content);
}

QString fileStateCommand(const QString &path)
{
    // The content on a line of its own, at most 200 bytes of it: markers are short.
    return QStringLiteral("stat -c 'sandscope-state=%U %a' -- %1 && printf 'sandscope-content=' && "
                          "{ head -c 200 -- %1 2>/dev/null || printf '(unreadable)'; } && echo")
        .arg(shell::quote(path));
}

FileState parseFileState(const QStringList &lines)
{
    FileState state;
    bool haveState = false;
    bool haveContent = false;
    for (const QString &line : lines) {
        if (line.startsWith(QLatin1String("sandscope-state="))) {
            const QStringList parts = line.mid(16).trimmed().split(QLatin1Char(' '));
            haveState = parts.size() == 2;
            state.owner = parts.value(0);
            state.mode = parts.value(1);
        } else if (line.startsWith(QLatin1String("sandscope-content="))) {
            haveContent = true;
            state.content = line.mid(18);
            if (state.content.endsWith(QLatin1Char('\r')))
                state.content.chop(1); // through a PTY
        }
    }
    state.known = haveState && haveContent;
    return state;
}

Judgement judgeWriteSwapRace(const QVector<protocol::HttpResponse> &responses,
    const FileState &before, const FileState &after, const Precondition &precondition)
{
    if (!precondition.met)
        return preconditionFailed(precondition);
    if (!before.known)
        return verdict(Verdict::Error,
            QStringLiteral("Precondition not met, so nothing was judged: A could not see its own "
                           "file before the attempts."));
    int written = 0;
    int refused = 0;
    int unusable = 0;
    QString refusal;
    for (const protocol::HttpResponse &response : responses) {
        const Classified c = classify(response);
        if (c.answer == Answer::Success) {
            ++written;
        } else if (c.answer == Answer::Denied || c.answer == Answer::Hidden) {
            ++refused;
            refusal = c.text;
        } else {
            ++unusable;
        }
    }
    const QString tally = QCoreApplication::translate("probe",
        "%n attempt(s): %1 written, %2 refused, %3 unusable", nullptr, int(responses.size()))
                              .arg(written)
                              .arg(refused)
                              .arg(unusable);
    if (!after.known)
        return verdict(Verdict::Error,
            QStringLiteral("Inconclusive: %1, and A could not see its file afterwards.")
                .arg(tally));
    if (!(after == before)) {
        QStringList changed;
        if (after.owner != before.owner)
            changed << QStringLiteral("its owner %1 → %2").arg(before.owner, after.owner);
        if (after.mode != before.mode)
            changed << QStringLiteral("its mode %1 → %2").arg(before.mode, after.mode);
        if (after.content != before.content)
            changed
                << QStringLiteral("its content \"%1\" → \"%2\"").arg(before.content, after.content);
        return verdict(Verdict::Fail,
            QStringLiteral("Reachable: A's file changed within the attempts (%1): %2 (the write, "
                           "or the chown and chmod after it, followed the swapped link).")
                .arg(tally, changed.join(QStringLiteral(", "))));
    }
    if (refused > 0)
        return verdict(Verdict::Pass,
            QStringLiteral("Denied at use: %1 (last refusal: %2), and A's file is unchanged (%3).")
                .arg(tally, refusal, after.describe()));
    return verdict(Verdict::Error,
        QStringLiteral("Inconclusive: %1; A's file is unchanged. The race was not won, which does "
                       "not prove that no window exists.")
            .arg(tally));
}

QStringList listedNames(const protocol::HttpResponse &response)
{
    QStringList names;
    if (!listingOk(response))
        return names;
    for (const FileEntry &entry : protocol::parseListing(response.body).value.entries)
        names << entry.name;
    return names;
}

bool listingOk(const protocol::HttpResponse &response)
{
    return response.status >= 200 && response.status < 300
        && protocol::parseListing(response.body).ok();
}

Effect listingEffect(
    const protocol::HttpResponse &after, const QString &name, bool listedWhenChanged)
{
    if (!listingOk(after))
        return Effect::Unknown;
    return listedNames(after).contains(name) == listedWhenChanged ? Effect::Observed
                                                                  : Effect::NotObserved;
}

Judgement judgeMutation(
    const protocol::HttpResponse &response, Effect effect, const Precondition &precondition)
{
    if (!precondition.met)
        return preconditionFailed(precondition);
    const Classified c = classify(response);
    if (effect == Effect::Observed)
        return verdict(Verdict::Fail,
            QStringLiteral("Reachable: the change happened (the server answered %1).").arg(c.text));
    if (c.answer == Answer::Success)
        return verdict(Verdict::Fail,
            QStringLiteral("Reachable: the server accepted the request (%1).").arg(c.text));
    if (effect == Effect::Unknown)
        return verdict(Verdict::Error,
            QStringLiteral("Inconclusive: the server answered %1, but A could not verify that "
                           "nothing changed.")
                .arg(c.text));
    switch (c.answer) {
    case Answer::Denied:
        return verdict(
            Verdict::Pass, QStringLiteral("Denied: %1, and nothing changed for A.").arg(c.text));
    case Answer::Hidden:
        return verdict(Verdict::Pass,
            QStringLiteral("Hidden: %1 for something A has, and nothing changed for A.")
                .arg(c.text));
    default:
        return verdict(Verdict::Error, QStringLiteral("Inconclusive: %1.").arg(c.text));
    }
}

namespace {

QString socketOutcome(const TerminalAttempt &attempt)
{
    if (!attempt.connected)
        return QStringLiteral("the handshake failed (%1)")
            .arg(attempt.error.isEmpty() ? QStringLiteral("no answer") : attempt.error);
    if (attempt.closedByServer)
        return QStringLiteral("the server closed the socket with code %1%2")
            .arg(attempt.closeCode)
            .arg(attempt.closeReason.isEmpty()
                    ? QString()
                    : QStringLiteral(" (\"%1\")").arg(attempt.closeReason));
    return QStringLiteral("the socket stayed open for %1 ms").arg(attempt.waitedMs);
}

} // namespace

bool terminalRefused(const TerminalAttempt &attempt)
{
    if (!attempt.connected)
        return !attempt.error.isEmpty();
    return attempt.closedByServer
        && (attempt.closeCode == 1008 || (attempt.closeCode >= 4000 && attempt.closeCode <= 4999));
}

Judgement judgeTerminalRead(const TerminalAttempt &attempt, const QString &tokenLine,
    const QString &account, const Precondition &precondition)
{
    if (!precondition.met)
        return preconditionFailed(precondition);
    const QRegularExpression ran(QRegularExpression::escape(tokenLine) + QStringLiteral("-(\\S+)"));
    QString ranAs;
    for (auto it = ran.globalMatch(attempt.output); it.hasNext();) {
        const QString seen = it.next().captured(1);
        if (seen == account)
            return verdict(Verdict::Fail,
                QStringLiteral("Reachable: B's socket reached A's shell, which ran B's line as "
                               "\"%1\" and sent its output to B (%2).")
                    .arg(account, socketOutcome(attempt)));
        ranAs = seen;
    }
    if (!ranAs.isEmpty())
        return verdict(Verdict::Pass,
            QStringLiteral("Separate: B's line ran as \"%1\", not as A's account \"%2\".")
                .arg(ranAs, account));
    if (terminalRefused(attempt))
        return verdict(Verdict::Pass,
            QStringLiteral("Denied: %1, and B saw nothing of A's shell.")
                .arg(socketOutcome(attempt)));
    return verdict(Verdict::Error,
        QStringLiteral("Inconclusive: %1 without a refusal and without B's line running.")
            .arg(socketOutcome(attempt)));
}

Judgement judgeTerminalWrite(
    const TerminalAttempt &attempt, Effect effect, const Precondition &precondition)
{
    if (!precondition.met)
        return preconditionFailed(precondition);
    if (effect == Effect::Observed)
        return verdict(Verdict::Fail,
            QStringLiteral("Reachable: B's keystrokes ran in A's shell and created a file in A's "
                           "home (%1).")
                .arg(socketOutcome(attempt)));
    if (effect == Effect::Unknown)
        return verdict(Verdict::Error,
            QStringLiteral("Inconclusive: %1, but A could not verify that nothing changed.")
                .arg(socketOutcome(attempt)));
    if (terminalRefused(attempt))
        return verdict(Verdict::Pass,
            QStringLiteral("Denied: %1, and nothing changed for A.").arg(socketOutcome(attempt)));
    return verdict(Verdict::Error,
        QStringLiteral("Inconclusive: %1 without a refusal; A's home did not change.")
            .arg(socketOutcome(attempt)));
}

ProcessListJudgement judgeProcessList(const protocol::HttpResponse &response,
    const QString &processId, const QString &commandMarker, const Precondition &precondition)
{
    if (!precondition.met) {
        const Judgement failed = preconditionFailed(precondition);
        return {failed, failed};
    }
    const Classified c = classify(response);
    if (c.answer == Answer::Denied || c.answer == Answer::Hidden) {
        const Judgement denied = verdict(
            Verdict::Pass, QStringLiteral("Denied: the list itself was refused (%1).").arg(c.text));
        return {denied, denied};
    }
    const Result<QVector<ProcessInfo>> parsed = c.answer == Answer::Success
        ? protocol::parseProcessList(response.body)
        : Result<QVector<ProcessInfo>>::failure(ApiError {});
    if (c.answer != Answer::Success || !parsed.ok()) {
        const Judgement error = verdict(Verdict::Error,
            QStringLiteral("Inconclusive: %1%2.")
                .arg(c.text,
                    c.answer == Answer::Success ? QStringLiteral(" but no process list")
                                                : QString()));
        return {error, error};
    }
    bool listed = false;
    bool commandSeen = false;
    for (const ProcessInfo &info : parsed.value) {
        listed = listed || info.id == processId;
        commandSeen = commandSeen || info.command.contains(commandMarker);
    }
    ProcessListJudgement judgement;
    judgement.listed = listed
        ? verdict(Verdict::Fail,
            QCoreApplication::translate("probe",
                "Reachable: B's list of %n process(es) includes A's process %1.", nullptr,
                int(parsed.value.size()))
                .arg(processId))
        : verdict(Verdict::Pass,
            QCoreApplication::translate("probe",
                "Scoped: B's list of %n process(es) does not include A's process.", nullptr,
                int(parsed.value.size())));
    judgement.commandLine = commandSeen
        ? verdict(Verdict::Fail,
            QStringLiteral("Reachable: B's list shows A's command line (marker \"%1\").")
                .arg(commandMarker))
        : verdict(Verdict::Pass, QStringLiteral("Scoped: no command line of A's in B's list."));
    return judgement;
}

Judgement judgeSessionReuse(const protocol::HttpResponse &cwdResponse,
    const protocol::HttpResponse &listResponse, const QString &targetHome, const QString &processId,
    const Precondition &precondition)
{
    if (!precondition.met)
        return preconditionFailed(precondition);
    QVector<Judgement> parts;
    const Classified cwd = classify(cwdResponse);
    if (cwd.answer == Answer::Success) {
        const Result<CwdInfo> info = protocol::parseCwd(cwdResponse.body);
        if (!info.ok())
            parts << verdict(Verdict::Error,
                QStringLiteral("Inconclusive: GET /files/cwd answered without a cwd."));
        else if (info.value.cwd == targetHome
            || info.value.cwd.startsWith(targetHome + QLatin1Char('/')))
            parts << verdict(Verdict::Fail,
                QStringLiteral("Reachable: with A's session id B's working directory is A's "
                               "\"%1\".")
                    .arg(info.value.cwd));
        else
            parts << verdict(Verdict::Pass,
                QStringLiteral("Scoped: with A's session id B's working directory stays \"%1\".")
                    .arg(info.value.cwd));
    } else {
        parts << (cwd.answer == Answer::Unusable
                ? verdict(Verdict::Error, QStringLiteral("Inconclusive: %1.").arg(cwd.text))
                : verdict(Verdict::Pass, QStringLiteral("Denied: %1.").arg(cwd.text)));
    }
    const ProcessListJudgement list
        = judgeProcessList(listResponse, processId, processId, Precondition::ok());
    Judgement listed = list.listed;
    if (listed.verdict == Verdict::Fail)
        listed.explanation = QStringLiteral("Reachable: with A's session id B's process list "
                                            "includes A's process.");
    parts << listed;
    return combine(parts);
}

QString shellSection(const QString &tag, const QString &command)
{
    // The markers are assembled by printf, so the script's own text never matches them.
    return QStringLiteral("printf '@@sandscope-%s %s\\n' begin %1; { %2 ; } 2>&1; "
                          "printf '@@sandscope-%s %s %s\\n' end %1 \"$?\"; ")
        .arg(tag, command);
}

QHash<QString, ShellOutcome> parseShellSections(const QStringList &lines)
{
    QHash<QString, ShellOutcome> sections;
    QString current;
    QStringList output;
    QStringList split;
    for (QString line : lines) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        // Output without a final newline (/proc/<pid>/cmdline ends in NUL) puts the end
        // marker on its own last line.
        const qsizetype end = line.indexOf(sectionEnd);
        if (end > 0) {
            split << line.left(end) << line.mid(end);
            continue;
        }
        split << line;
    }
    for (const QString &line : std::as_const(split)) {
        if (line.startsWith(sectionStart)) {
            current = line.mid(sectionStart.size()).trimmed();
            output.clear();
            continue;
        }
        if (line.startsWith(sectionEnd) && !current.isEmpty()) {
            const QStringList fields = line.mid(sectionEnd.size()).split(QLatin1Char(' '));
            bool numeric = false;
            const int exitCode = fields.size() == 2 ? fields.at(1).toInt(&numeric) : -1;
            if (fields.size() == 2 && fields.at(0) == current && numeric) {
                ShellOutcome outcome;
                outcome.ran = true;
                outcome.exitCode = exitCode;
                outcome.output = output.join(QLatin1Char('\n'));
                sections.insert(current, outcome);
            }
            current.clear();
            continue;
        }
        if (!current.isEmpty())
            output << line;
    }
    return sections;
}

Judgement judgeShell(const ShellOutcome &outcome, ShellAccess access, const QString &marker,
    const Precondition &precondition)
{
    if (!precondition.met)
        return preconditionFailed(precondition);
    if (!outcome.ran)
        return verdict(
            Verdict::Error, QStringLiteral("Inconclusive: the command's result was not seen."));
    if (access == ShellAccess::Read && outcome.output.contains(marker))
        return verdict(Verdict::Fail,
            QStringLiteral("Reachable: B's command printed A's marker \"%1\".").arg(marker));
    if (access == ShellAccess::Modify && outcome.exitCode == 0)
        return verdict(Verdict::Fail, QStringLiteral("Reachable: B's command succeeded."));
    if (outcome.exitCode != 0 && deniedByPermissions(outcome.output))
        return verdict(Verdict::Pass,
            QStringLiteral("Denied by file permissions (exit status %1).").arg(outcome.exitCode));
    return verdict(Verdict::Error,
        QStringLiteral("Inconclusive: exit status %1 without a permission error or A's data.")
            .arg(outcome.exitCode));
}

Judgement judgeProcessTable(
    const ShellOutcome &outcome, const QString &commandMarker, const Precondition &precondition)
{
    if (!precondition.met)
        return preconditionFailed(precondition);
    if (!outcome.ran)
        return verdict(Verdict::Error, QStringLiteral("Inconclusive: ps did not run."));
    if (outcome.output.contains(commandMarker))
        return verdict(Verdict::Fail,
            QStringLiteral("Reachable: ps in B's shell shows A's command line (marker \"%1\").")
                .arg(commandMarker));
    if (outcome.exitCode != 0)
        return verdict(Verdict::Error,
            QStringLiteral("Inconclusive: ps exited with status %1.").arg(outcome.exitCode));
    return verdict(
        Verdict::Pass, QStringLiteral("Scoped: ps in B's shell does not show A's process."));
}

Judgement combine(const QVector<Judgement> &judgements)
{
    if (judgements.isEmpty())
        return verdict(Verdict::Error, QStringLiteral("Nothing was judged."));
    Verdict overall = Verdict::Pass;
    const auto rank = [](Verdict v) {
        switch (v) {
        case Verdict::Fail:
            return 3;
        case Verdict::Error:
            return 2;
        case Verdict::Info:
            return 1;
        case Verdict::Pass:
            return 0;
        }
        return 2;
    };
    QStringList explanations;
    for (const Judgement &judgement : judgements) {
        if (rank(judgement.verdict) > rank(overall))
            overall = judgement.verdict;
        explanations << judgement.explanation;
    }
    return verdict(overall, explanations.join(QLatin1Char(' ')));
}

Judgement judgeAccountTwin(const AccountObservation &first, const AccountObservation &twin)
{
    if (first.account.isEmpty())
        return verdict(Verdict::Error,
            QStringLiteral("Precondition not met: the account of \"%1\" is unknown (%2).")
                .arg(first.userId, first.error));
    if (twin.account.isEmpty())
        return verdict(Verdict::Error,
            QStringLiteral("Inconclusive: the account of \"%1\" is unknown (%2).")
                .arg(twin.userId, twin.error));
    if (first.account == twin.account)
        return verdict(Verdict::Fail,
            QStringLiteral("Reachable: \"%1\" and \"%2\" both run as account \"%3\".")
                .arg(first.userId, twin.userId, first.account));
    return verdict(Verdict::Pass,
        QStringLiteral("Separate: \"%1\" runs as \"%2\", \"%3\" as \"%4\".")
            .arg(first.userId, first.account, twin.userId, twin.account));
}

Judgement judgeAccountVariant(const AccountObservation &owner, const AccountObservation &variant,
    const QString &serverAccount, bool ordinaryIdsWork)
{
    const Judgement reserved = judgeReservedId(variant, serverAccount, ordinaryIdsWork);
    if (reserved.verdict != Verdict::Pass)
        return reserved;
    if (!variant.account.isEmpty() && variant.account == owner.account)
        return verdict(Verdict::Fail,
            QStringLiteral("\"%1\" runs as the account of \"%2\", \"%3\".")
                .arg(variant.userId, owner.userId, owner.account));
    return reserved;
}

Judgement judgeReservedId(
    const AccountObservation &observation, const QString &serverAccount, bool ordinaryIdsWork)
{
    const QString &id = observation.userId;
    if (observation.account.isEmpty()) {
        const bool refused
            = (observation.status >= 400 && observation.status < 500 && observation.status != 401)
            || (observation.status == 500 && ordinaryIdsWork);
        if (refused)
            return verdict(Verdict::Pass,
                QStringLiteral("\"%1\" was refused (HTTP %2%3).")
                    .arg(id)
                    .arg(observation.status)
                    .arg(observation.error.isEmpty() ? QString()
                                                     : QStringLiteral(": ") + observation.error));
        return verdict(Verdict::Error,
            QStringLiteral("Inconclusive: what \"%1\" runs as is unknown (%2).")
                .arg(id,
                    observation.error.isEmpty() ? QStringLiteral("no answer") : observation.error));
    }
    if (observation.uid == 0)
        return verdict(Verdict::Fail, QStringLiteral("\"%1\" runs as root (uid 0).").arg(id));
    // An account that does not exist is none of root's, the system's or the server's.
    if (observation.accountGone && observation.account != QLatin1String("root")
        && observation.account != serverAccount)
        return verdict(Verdict::Pass,
            QStringLiteral("\"%1\" maps to \"%2\", an account that no longer exists (a probe "
                           "removed it; the server keeps the mapping until it restarts).")
                .arg(id, observation.account));
    if (!serverAccount.isEmpty() && observation.account == serverAccount)
        return verdict(Verdict::Fail,
            QStringLiteral("\"%1\" runs as the server's own account \"%2\".")
                .arg(id, observation.account));
    if (observation.uid < 0)
        return verdict(Verdict::Error,
            QStringLiteral("Inconclusive: \"%1\" runs as \"%2\" with an unknown uid.")
                .arg(id, observation.account));
    if (observation.uid < 1000)
        return verdict(Verdict::Fail,
            QStringLiteral("\"%1\" runs as the system account \"%2\" (uid %3).")
                .arg(id, observation.account)
                .arg(observation.uid));
    return verdict(Verdict::Pass,
        QStringLiteral("\"%1\" got an ordinary account of its own, \"%2\" (uid %3).")
            .arg(id, observation.account)
            .arg(observation.uid));
}

Judgement judgeNetwork(
    const ShellOutcome &outcome, const QString &marker, const Precondition &precondition)
{
    if (!precondition.met)
        return preconditionFailed(precondition);
    if (!outcome.ran)
        return verdict(Verdict::Error, QStringLiteral("Inconclusive: B's attempt did not run."));
    if (outcome.output.contains(marker))
        return verdict(Verdict::Info,
            QStringLiteral("B reached the port A listens on and read A's marker: users share "
                           "the network."));
    return verdict(Verdict::Info,
        QStringLiteral("B could not read from the port A listens on (exit status %1).")
            .arg(outcome.exitCode));
}

QString twinUserId(const QString &userId, const QString &suffix)
{
    // Same first eight alphanumerics (the server lower-cases them), a different id.
    QString alnum;
    for (const QChar c : userId) {
        if (c.isLetterOrNumber() && c.unicode() < 128)
            alnum.append(c.toLower());
    }
    if (alnum.size() < 4) // such ids are hashed: no twin can be constructed
        return {};
    QString twin = alnum.left(8).toUpper() + QLatin1Char('-');
    if (alnum.size() >= 8) // a longer tail changes nothing in the account name
        twin += suffix;
    if (twin == userId)
        twin.append(QLatin1Char('-'));
    return twin;
}

QString whoAmICommand()
{
    return QStringLiteral("printf 'sandscope-account=%s\\nsandscope-uid=%s\\nsandscope-home=%s\\n' "
                          "\"$(id -un)\" \"$(id -u)\" \"$HOME\"");
}

AccountObservation parseWhoAmI(const QString &userId, const QStringList &lines)
{
    AccountObservation observation;
    observation.userId = userId;
    observation.account = valueAfter(lines, accountKey);
    bool ok = false;
    const int uid = valueAfter(lines, uidKey).toInt(&ok);
    observation.uid = ok ? uid : -1;
    static const QRegularExpression gone(QStringLiteral("unknown user:? ([A-Za-z0-9_.-]+)"));
    for (const QString &line : lines) {
        const QRegularExpressionMatch match = gone.match(line);
        if (observation.account.isEmpty() && match.hasMatch()) {
            observation.account = match.captured(1);
            observation.accountGone = true;
        }
    }
    if (observation.account.isEmpty())
        observation.error = QStringLiteral("the command did not report an account");
    return observation;
}

QString homeFromWhoAmI(const QStringList &lines)
{
    return valueAfter(lines, homeKey);
}

} // namespace sandscope::probe
