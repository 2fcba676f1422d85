#include "runtreerecords.h"

#include "runtree/runnode.h"

#include <vector>

namespace sandscope {

namespace {

// Iterative copies both ways, so a deep tree from a hostile file cannot overflow the stack.
template <typename Node> void copyValues(const Node &from, RunNodeRecord &to)
{
    to.kind = int(from.kind);
    to.status = int(from.status);
    to.toolKind = int(from.toolKind);
    to.title = from.title;
    to.text = from.text;
    to.toolName = from.toolName;
    to.toolUseId = from.toolUseId;
    to.parentToolUseId = from.parentToolUseId;
    to.messageId = from.messageId;
    to.input = from.call().input;
    to.inputJson = from.call().inputJson;
    to.resultText = from.call().resultText;
    to.structuredResultJson = from.call().structuredResultJson;
    to.raw = from.raw;
    to.rawIsJson = from.rawIsJson;
    to.resultRaw = from.call().resultRaw;
    to.isError = from.isError;
    to.lineNumber = from.lineNumber;
    to.startedMs = from.startedMs;
    to.durationMs = from.durationMs();
    to.claudeDurationMs = from.reportedDurationMs;
    to.tokens = from.tokens;
    to.toolCalls = from.toolCalls;
    to.errors = from.errors;
    to.hasCost = from.hasCost;
    to.costUsd = from.costUsd;
    to.task = from.call().task;
    to.model = from.model;
    to.errorCode = from.errorCode;
}

} // namespace

RunNodeRecord RunTreeRecords::record(const RunNode *top, const RunLineReader &lines)
{
    RunNodeRecord result;
    std::vector<std::pair<const RunNode *, RunNodeRecord *>> pending {{top, &result}};
    while (!pending.empty()) {
        const auto [node, out] = pending.back();
        pending.pop_back();
        copyValues(*node, *out);
        out->raw = lines.lineOf(node->raw, node->rawRef); // read again when it was left out
        out->resultRaw = lines.lineOf(node->call().resultRaw, node->call().resultRawRef);
        if (node->textOnDisk || node->inputOnDisk || node->resultOnDisk) {
            const RunNodeDetails details = lines.detailsOf(node);
            out->text = details.text;
            out->input = details.input;
            out->inputJson = details.inputJson;
            out->resultText = details.output;
            out->structuredResultJson = details.structuredResultJson;
        }
        out->children.resize(node->children.size());
        for (size_t i = 0; i < node->children.size(); ++i)
            pending.emplace_back(node->children[i].get(), &out->children[i]);
    }
    return result;
}

bool RunTreeRecords::restore(
    RunTreeState &tree, const RunNodeRecord &run, const RunSummary &summary)
{
    if (!tree.run->children.empty() || tree.restored)
        return false;
    std::vector<std::pair<const RunNodeRecord *, RunNode *>> pending {{&run, tree.run}};
    while (!pending.empty()) {
        const auto [from, node] = pending.back();
        pending.pop_back();
        node->kind = node == tree.run ? runnode::NodeKind::Run : runnode::NodeKind(from->kind);
        node->status = runnode::Status(from->status);
        node->toolKind = runnode::ToolKind(from->toolKind);
        node->title = from->title;
        node->text = from->text;
        node->toolName = from->toolName;
        node->toolUseId = from->toolUseId;
        node->parentToolUseId = from->parentToolUseId;
        node->messageId = from->messageId;
        if (node->kind == runnode::NodeKind::ToolCall) {
            RunToolCallData &data = node->editCall();
            data.input = from->input;
            data.inputJson = from->inputJson;
            data.resultText = from->resultText;
            data.structuredResultJson = from->structuredResultJson;
            data.resultRaw = from->resultRaw;
            data.task = from->task;
        }
        node->raw = from->raw;
        node->rawIsJson = from->rawIsJson;
        node->isError = from->isError;
        node->lineNumber = from->lineNumber;
        node->startedMs = from->startedMs;
        node->endedMs = from->startedMs >= 0 && from->durationMs >= 0
            ? from->startedMs + from->durationMs
            : -1;
        node->reportedDurationMs = from->claudeDurationMs;
        node->tokens = from->tokens;
        node->hasCost = from->hasCost;
        node->costUsd = from->costUsd;
        node->toolCalls = from->toolCalls;
        node->errors = from->errors;
        node->model = from->model;
        node->errorCode = from->errorCode;
        node->ended = true;
        if (!node->toolUseId.isEmpty() && node->kind == runnode::NodeKind::ToolCall)
            tree.toolsById.insert(node->toolUseId, node);
        for (size_t i = 0; i < from->children.size(); ++i) {
            auto child = std::make_unique<RunNode>();
            child->parent = node;
            child->row = int(node->children.size());
            node->children.push_back(std::move(child));
        }
        // Last child first onto the stack, so turns are visited (and listed) in order.
        for (size_t i = from->children.size(); i-- > 0;)
            pending.emplace_back(&from->children[i], node->children[i].get());
        if (node->parent == tree.run && node->kind == runnode::NodeKind::Turn) {
            tree.turns.push_back(node);
            ++tree.turnCount;
        }
    }
    tree.endedTurns = tree.turns.size();
    tree.firstOpenTurn = tree.turns.size();
    tree.runEnded = true;
    tree.restored = true;
    tree.restoredSummary = summary;
    return true;
}

} // namespace sandscope
