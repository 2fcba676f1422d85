#pragma once
// The files a run was read from, so that its lines need not stay in memory: a line is read
// again, on its own, from where a LineRef says it is (RecordingReader::lineAt decodes a
// recording's entry). Reading is serialised; any thread may ask.

#include "runs/runevents.h"
#include "runs/runrecording.h"

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
    int addFile(const QString &path, RecordingReader::Format format);
    int fileCount() const;

    // The line, read again; empty with *errorMessage set when it cannot be read (the file
    // changed or went away since).
    QByteArray line(const LineRef &ref, QString *errorMessage = nullptr) const;

private:
    struct File;
    mutable QMutex m_mutex;
    std::vector<std::unique_ptr<File>> m_files;
};

} // namespace sandscope
