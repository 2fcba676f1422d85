#include "csvparser.h"

#include <QFileInfo>

namespace sandscope {

CsvTable CsvParser::parse(QStringView text, int maxRows) const
{
    CsvTable table;
    const QChar quote = QLatin1Char('"');
    const QChar cr = QLatin1Char('\r');
    const QChar lf = QLatin1Char('\n');
    const qsizetype size = text.size();

    QStringList row;
    QString field;
    bool inRecord = false;
    const auto endRow = [&] {
        inRecord = false;
        row.append(field);
        field.clear();
        table.columnCount = std::max(table.columnCount, int(row.size()));
        table.rows.append(row);
        row.clear();
    };

    qsizetype i = 0;
    while (i < size) {
        if (maxRows >= 0 && table.rows.size() >= maxRows) {
            table.truncated = true;
            return table;
        }
        // At the start of a field.
        inRecord = true;
        if (text[i] == quote) {
            ++i;
            bool closed = false;
            while (i < size) {
                const QChar c = text[i];
                if (c == quote) {
                    if (i + 1 < size && text[i + 1] == quote) {
                        field.append(quote);
                        i += 2;
                        continue;
                    }
                    ++i;
                    closed = true;
                    break;
                }
                // Copy the run of ordinary characters in one go.
                qsizetype end = i + 1;
                while (end < size && text[end] != quote)
                    ++end;
                field.append(text.mid(i, end - i));
                i = end;
            }
            if (!closed) {
                table.unterminatedQuoteRow = int(table.rows.size());
                endRow();
                return table;
            }
        }
        // Unquoted text, or what follows a closing quote, up to the separator or line end.
        qsizetype end = i;
        while (end < size && text[end] != m_separator && text[end] != lf && text[end] != cr)
            ++end;
        field.append(text.mid(i, end - i));
        i = end;
        if (i >= size)
            break;
        if (text[i] == m_separator) {
            row.append(field);
            field.clear();
            ++i; // at the end of the input, "a,b," still gets its empty last field below
            continue;
        }
        // Line end: CRLF, LF or a lone CR.
        if (text[i] == cr && i + 1 < size && text[i + 1] == lf)
            ++i;
        ++i;
        endRow();
    }
    if (inRecord)
        endRow();
    return table;
}

QChar CsvParser::guessSeparator(const QString &fileName, QStringView text)
{
    const QString suffix = QFileInfo(fileName).suffix().toLower();
    if (suffix == QLatin1String("tsv") || suffix == QLatin1String("tab"))
        return QLatin1Char('\t');
    if (suffix == QLatin1String("csv"))
        return QLatin1Char(',');
    qsizetype lineEnd = text.indexOf(QLatin1Char('\n'));
    const QStringView firstLine = lineEnd < 0 ? text : text.left(lineEnd);
    if (firstLine.contains(QLatin1Char('\t')) && !firstLine.contains(QLatin1Char(',')))
        return QLatin1Char('\t');
    return QLatin1Char(',');
}

} // namespace sandscope
