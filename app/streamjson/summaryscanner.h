#pragma once
// The summary fast path (`sandscope replay FILE --summary`): reads only what RunSummary needs
// from each stream-json line, parsed once with simdjson straight from the caller's buffer, and
// hands it to a RunSummaryBuilder without building RunEvents, QStrings or a tree. It gives the
// same summary as RunParser + RunSummaryBuilder::add (tests/unit/tst_runparser.cpp and the
// fuzzer compare the two). Transcript records are not handled: scan() says so, and the caller
// takes the event path (RunParser, and SubagentSplicer for a transcript's sub-agents).

#include <QtGlobal>

#include <memory>
#include <string_view>

namespace sandscope {

class RunSummaryBuilder;

class RunSummaryScanner {
public:
    // Bytes after a line that scanPadded may read (simdjson's SIMDJSON_PADDING).
    static const size_t padding;

    enum class Line {
        Blank, // only whitespace: not a line of the run
        Counted, // a line of the run (JSON or not), its summary facts added
        NeedsEvents, // a transcript record: summarise this file through RunParser instead
    };

    explicit RunSummaryScanner(RunSummaryBuilder *builder);
    ~RunSummaryScanner();
    RunSummaryScanner(const RunSummaryScanner &) = delete;
    RunSummaryScanner &operator=(const RunSummaryScanner &) = delete;

    // One line (a trailing "\n" / "\r\n" is allowed). scanPadded parses it in place: at least
    // `padding` bytes after line.end() must be readable (their content does not matter);
    // scan copies the line into a padded buffer first.
    Line scanPadded(std::string_view line);
    Line scan(std::string_view line);

    // The time of the next line scanned (a recording entry's arrival time). Without it, each
    // line's own "timestamp" field is read (a plain capture, as RecordingReader dates it).
    void setLineTime(qint64 timeMs);

    // Gives back the parser's memory after a huge line.
    void releaseLargeBuffers();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace sandscope
