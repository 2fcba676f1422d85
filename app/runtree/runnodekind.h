#pragma once
// A node's kind, its status and the kind of tool it calls: RunModel's roles give them, the node
// texts (runnodetext.h) and the views read them. Apart from RunModel so that those texts need not
// include the model (RunModel::NodeKind, RunModel::Status and RunModel::ToolKind name these).
// One byte each: every node of the tree holds all three.

#include <QObject>

namespace sandscope {
namespace runnode {
Q_NAMESPACE

enum class NodeKind : quint8 {
    Run,
    Turn,
    AssistantText,
    Thinking,
    ToolCall,
    UserText, // a sub-agent's prompt, interrupt notes, replayed prompts
    ApiRetry,
    ApiError, // synthetic assistant message: no model response could be obtained
    PermissionDenied,
    Result,
    CompactBoundary,
    SystemNotice,
    Raw, // unknown JSON type, noise or corrupt line
};
Q_ENUM_NS(NodeKind)

enum class Status : quint8 {
    None,
    Running,
    Ok,
    Error,
    Interrupted, // no result before the run ended
    Denied, // permission denied
    Retrying, // api_retry
    Background, // Agent launched with run_in_background; its task is still running
};
Q_ENUM_NS(Status)

// What kind of tool a call is, so a view can choose an icon.
enum class ToolKind : quint8 {
    None,
    Shell,
    Read,
    Write,
    Edit,
    Search,
    Web,
    Agent,
    Todo,
    Mcp,
    Notebook,
    Other
};
Q_ENUM_NS(ToolKind)

} // namespace runnode
} // namespace sandscope
