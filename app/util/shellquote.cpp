#include "shellquote.h"

namespace sandscope::shell {

QByteArray quote(const QByteArray &argument)
{
    QByteArray quoted;
    quoted.reserve(argument.size() + 2 + argument.count('\'') * 3);
    quoted.append('\'');
    for (const char byte : argument) {
        if (byte == '\'')
            quoted.append("'\\''");
        else
            quoted.append(byte);
    }
    quoted.append('\'');
    return quoted;
}

QString quote(const QString &argument)
{
    QString quoted;
    quoted.reserve(argument.size() + 2 + argument.count(QLatin1Char('\'')) * 3);
    quoted.append(QLatin1Char('\''));
    for (const QChar character : argument) {
        if (character == QLatin1Char('\''))
            quoted.append(QLatin1String("'\\''"));
        else
            quoted.append(character);
    }
    quoted.append(QLatin1Char('\''));
    return quoted;
}

QString join(const QStringList &arguments)
{
    QStringList quoted;
    quoted.reserve(arguments.size());
    for (const QString &argument : arguments)
        quoted.append(quote(argument));
    return quoted.join(QLatin1Char(' '));
}

QString commandLine(const QStringList &words)
{
    return words.size() == 1 ? words.first() : join(words);
}

bool isPassable(const QString &argument)
{
    return !argument.contains(QChar(0));
}

} // namespace sandscope::shell
