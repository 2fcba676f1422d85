#pragma once
// What kind of file a run is read from (RecordingReader::Format names it). Apart from the
// reader so that LineSource, which the reader uses, can name it too.

#include <QObject>

namespace sandscope {
namespace recordingformat {
Q_NAMESPACE
enum class Format {
    Unknown, // not opened
    Recording, // a RunRecorder file
    StreamJson, // plain `claude -p --output-format stream-json` output
    Transcript, // ~/.claude/projects/<escaped cwd>/<session>.jsonl
};
Q_ENUM_NS(Format)
} // namespace recordingformat

using RecordingFormat = recordingformat::Format;

} // namespace sandscope
