#pragma once
// RFC 4180 reader for CSV and TSV: quoted fields may hold separators, doubled quotes and line
// breaks; records end at CRLF, LF or a lone CR. Lenient where the RFC is strict, so that
// real-world files still show: rows may have different lengths, text after a closing quote is
// kept, and an unterminated quote runs to the end of the input and is reported.

#include <QChar>
#include <QStringList>
#include <QStringView>
#include <QVector>

namespace sandscope {

struct CsvTable {
    QVector<QStringList> rows;
    int columnCount = 0; // length of the longest row
    bool truncated = false; // stopped at maxRows; more records follow
    int unterminatedQuoteRow = -1; // 0-based row whose quoted field never closed, or -1
};

class CsvParser {
public:
    explicit CsvParser(QChar separator = QLatin1Char(','))
        : m_separator(separator)
    {
    }

    // maxRows < 0: no limit. A line break at the very end does not start another row.
    CsvTable parse(QStringView text, int maxRows = -1) const;

    // ',' unless the file name says TSV (.tsv, .tab) or the first line has tabs but no commas.
    static QChar guessSeparator(const QString &fileName, QStringView text);

private:
    QChar m_separator;
};

} // namespace sandscope
