#pragma once
// Framed records: a command's NUL-terminated records between a begin and an end marker line,
// each record escaped by `sed -n l` into one ASCII line ending in "$", because the terminal the
// server runs commands in is text-only (names may hold newlines, tabs or bytes that are not
// UTF-8). Used by every one-command scan: the chat scan and the run artifacts.

#include <QByteArray>
#include <QString>
#include <QStringView>

namespace sandscope {

namespace chatscan {

// Runs `body` (whose output is NUL-terminated records) between a `begin` and an `end` marker
// line, each record escaped by `sed -n l` into one ASCII line ending in "$" (shared with other
// one-command scans, e.g. the run artifacts).
QString framedRecords(const QString &begin, const QString &body, const QString &end);
// One such line without its final "$" back to the bytes it stands for.
QByteArray unescapeSedLine(QStringView line);

// Follows the output of a framedRecords() command line by line (lines already reassembled,
// CR stripped): the records between the markers come back as bytes; marker lines and stray
// terminal lines (sudo or login noise) do not.
class FramedRecordReader {
public:
    FramedRecordReader(QString begin, QString end);
    // True with *record set when `line` is a record.
    bool feedLine(const QString &line, QByteArray *record);
    bool sawBegin() const { return m_state != State::BeforeBegin; }
    bool sawEnd() const { return m_state == State::Ended; }

private:
    enum class State { BeforeBegin, Inside, Ended };
    QString m_begin;
    QString m_end;
    State m_state = State::BeforeBegin;
};

} // namespace chatscan

} // namespace sandscope
