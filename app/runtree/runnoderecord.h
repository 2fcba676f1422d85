#pragma once
// One node of the run tree as plain values, with its children: what RunModel::record() copies
// out of a model (export, a live run included) and RunModel::restore() builds a tree from
// again (an exported run re-opened: docs/export.md). Kind, status and tool kind are the
// RunModel enums as int, so this header does not need the model.

#include "streamjson/runevents.h"

#include <QByteArray>
#include <QString>

#include <vector>

namespace sandscope {

struct RunNodeRecord {
    int kind = 0; // RunModel::NodeKind
    int status = 0; // RunModel::Status
    int toolKind = 0; // RunModel::ToolKind
    QString title; // the one-line summary without the tool name (SummaryRole)
    QString text;
    QString toolName;
    QString toolUseId;
    QString parentToolUseId;
    QString messageId;
    ToolInput input;
    QByteArray inputJson;
    QString resultText;
    QByteArray structuredResultJson;
    QByteArray raw; // the originating line
    bool rawIsJson = true;
    QByteArray resultRaw; // tool calls: the tool_result line
    bool isError = false;
    qint64 lineNumber = 0;
    qint64 startedMs = -1;
    qint64 durationMs = -1; // the span on the run's clock; -1 while unknown or a point event
    qint64 claudeDurationMs = -1; // claude's own duration_ms (results, turns, the run)
    TokenUsage tokens;
    qint64 toolCalls = 0; // in the subtree (RunModel::ToolCallsColumn)
    qint64 errors = 0; // in the subtree (RunModel::ErrorsColumn)
    bool hasCost = false;
    double costUsd = 0;
    TaskInfo task;
    QString model;
    QString errorCode;
    std::vector<RunNodeRecord> children;
};

} // namespace sandscope
