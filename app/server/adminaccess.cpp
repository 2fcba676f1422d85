#include "adminaccess.h"

#include "util/shellquote.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QRegularExpression>

namespace sandscope {

bool AdminAccess::splitWords(const QString &text, QStringList *words, QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (text.contains(QChar(0)))
        return fail(QStringLiteral("the command contains a NUL character"));
    QStringList result;
    QString word;
    bool inWord = false;
    enum { Plain, Single, Double } state = Plain;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (state == Single) {
            if (c == QLatin1Char('\''))
                state = Plain;
            else
                word += c;
            continue;
        }
        if (state == Double) {
            if (c == QLatin1Char('"')) {
                state = Plain;
            } else if (c == QLatin1Char('\\') && i + 1 < text.size()
                && QStringLiteral("\"\\$`").contains(text.at(i + 1))) {
                word += text.at(++i);
            } else {
                word += c;
            }
            continue;
        }
        if (c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\n')) {
            if (inWord)
                result.append(word);
            word.clear();
            inWord = false;
        } else if (c == QLatin1Char('\'')) {
            state = Single;
            inWord = true;
        } else if (c == QLatin1Char('"')) {
            state = Double;
            inWord = true;
        } else if (c == QLatin1Char('\\')) {
            if (i + 1 >= text.size())
                return fail(QStringLiteral("the command ends with a backslash"));
            word += text.at(++i);
            inWord = true;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (state != Plain)
        return fail(
            QStringLiteral("the command has an unclosed %1 quote")
                .arg(state == Single ? QStringLiteral("single") : QStringLiteral("double")));
    if (inWord)
        result.append(word);
    *words = result;
    return true;
}

bool AdminAccess::fromCommand(const QString &text, AdminAccess *access, QString *error)
{
    QStringList words;
    if (!splitWords(text, &words, error))
        return false;
    if (words.isEmpty()) {
        if (error)
            *error = QStringLiteral("the admin command is empty");
        return false;
    }
    access->channel = Channel::LocalCommand;
    access->prefix = words;
    return true;
}

QStringList AdminAccess::argv() const
{
    return prefix + QStringList {QStringLiteral("sh"), QStringLiteral("-s")};
}

QString AdminAccess::commandLine() const
{
    // Words made of harmless characters stay as they are, so the line reads like the one
    // typed; anything else is single-quoted.
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    QStringList quoted;
    for (const QString &word : argv())
        quoted.append(plain.match(word).hasMatch() ? word : shell::quote(word));
    return quoted.join(QLatin1Char(' '));
}

QString AdminAccess::describe() const
{
    if (channel == Channel::ServerAccount)
        return QCoreApplication::translate(
            "AdminAccess", "as the open-terminal server account (requests without X-User-Id)");
    return QCoreApplication::translate("AdminAccess", "as root through the admin command \"%1\"")
        .arg(commandLine());
}

QString AdminAccess::suggestedCommand(const QUrl &serverUrl, const QString &setup)
{
    const QString host = serverUrl.host(); // IPv6 without brackets
    if (host == QLatin1String("localhost") || QHostAddress(host).isLoopback())
        return QStringLiteral("sudo -n");
    if (setup == QLatin1String("kubernetes"))
        return QStringLiteral("kubectl exec -i POD -c CONTAINER --");
    if (setup == QLatin1String("container"))
        return QStringLiteral("docker compose -f sandbox/docker-compose.yml --env-file "
                              "sandbox/versions.env --env-file sandbox/.env exec -T -u root "
                              "sandbox");
    if (setup == QLatin1String("host"))
        return QStringLiteral("ssh %1 sudo -n").arg(host.isEmpty() ? QStringLiteral("HOST") : host);
    return QStringLiteral("docker compose … exec -T -u root sandbox, kubectl exec -i POD --, "
                          "or ssh HOST sudo -n");
}

QString AdminAccess::refusalAdvice(const QString &view, const QUrl &serverUrl, const QString &setup)
{
    return QCoreApplication::translate("AdminAccess",
        "%1 needs root in the sandbox, and this server refuses requests without a user id: set "
        "the admin command (File \u203a Connect\u2026), e.g. %2.")
        .arg(view, suggestedCommand(serverUrl, setup));
}

} // namespace sandscope
