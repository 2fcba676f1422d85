#include "environmentmasker.h"

#include <QGuiApplication>
#include <QPalette>
#include <QTextCharFormat>

namespace sandscope {

EnvironmentMasker::EnvironmentMasker(QTextDocument *document)
    : QSyntaxHighlighter(document)
{
}

int EnvironmentMasker::maskedFrom(const QString &line)
{
    if (line.trimmed().startsWith(QLatin1Char('#')))
        return -1;
    const int equals = line.indexOf(QLatin1Char('='));
    return equals < 0 || equals + 1 >= line.size() ? -1 : equals + 1;
}

void EnvironmentMasker::highlightBlock(const QString &text)
{
    const int from = maskedFrom(text);
    if (from < 0)
        return;
    // The glyphs are not painted (transparent) over a hatched bar the size of the value, so
    // its length shows that something was typed, but not what.
    QTextCharFormat masked;
    masked.setForeground(Qt::transparent);
    masked.setBackground(
        QBrush(QGuiApplication::palette().color(QPalette::Text), Qt::Dense5Pattern));
    setFormat(from, int(text.size()) - from, masked);
}

} // namespace sandscope
