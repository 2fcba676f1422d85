#pragma once
// The files a run was read from, so that its lines need not stay in memory: a line is read
// again, on its own, from where a LineRef says it is (readAt decodes a recording's entry).
// Reading is serialised; any thread may ask.

#include "recordings/recordingformat.h"
#include "streamjson/runevents.h"

#include <QMutex>
#include <QString>

#include <memory>
#include <vector>

class QFile;

namespace sandscope {

class LineSource {
public:
    LineSource();
    ~LineSource();
    LineSource(const LineSource &) = delete;
    LineSource &operator=(const LineSource &) = delete;

    // A file lines come from, as written in `format`; returns its index for LineRef::source.
    // How the file is held: open from now on (its lines stay readable if it is deleted),
    // opened for each read (a transcript's sub-agent files, which may be many), or never (a
    // pipe: read once, its lines are kept in the events; opening it again would wait for a
    // writer that may be gone).
    enum class Hold { Open, PerRead, Never };
    int addFile(const QString &path, RecordingFormat format, Hold hold = Hold::Open);
    int fileCount() const;

    // Marks the events of one line with where it is (RunEvent::rawRef: `line`, with each
    // event's part), and leaves the line out of them (RunEvent::raw) unless keepLine; a line
    // that is not JSON is kept either way (its node's title is made from it).
    static void locate(RunEvent *first, RunEvent *last, const LineRef &line, bool keepLine);

    // The line, read again; empty with *errorMessage set when it cannot be read (the file
    // changed or went away since).
    QByteArray line(const LineRef &ref, QString *errorMessage = nullptr) const;

    // The bytes the line is stored as, undecoded: the line itself, or its recording entry (the
    // line as a JSON string: a character of the line other than a quote, a backslash, a
    // slash or a control character is there as it is, but where it is \u-escaped). Read into
    // *buffer, which the result points into (no allocation per line, for a search of a big
    // run that goes through all of them). Empty when it cannot be read, and for an entry
    // whose line is in base64.
    QByteArray storedBytes(const LineRef &ref, QByteArray *buffer) const;

    // The bytes at [offset, offset + length) of `file`, decoded when `format` is a recording
    // (RecordingReader::lineAt). The file's position does not move (pread).
    static QByteArray readAt(QFile &file, RecordingFormat format, qint64 offset, qint64 length,
        QString *errorMessage = nullptr);

private:
    struct File;
    mutable QMutex m_mutex;
    std::vector<std::unique_ptr<File>> m_files;
};

} // namespace sandscope
