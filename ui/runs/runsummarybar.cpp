#include "runsummarybar.h"

#include "flowlayout.h"
#include "runs/rundelegate.h"
#include "util/format.h"

#include <QLabel>
#include <QLocale>

namespace sandscope {

RunSummaryBar::RunSummaryBar(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("runSummaryBar"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    QPalette shaded = palette();
    shaded.setColor(QPalette::Window, shaded.color(QPalette::AlternateBase));
    setPalette(shaded);

    // Wraps onto a second line in a narrow window rather than widening it.
    auto *layout = new FlowLayout(this, 18, 2);
    layout->setContentsMargins(8, 4, 8, 4);
    m_outcome = new QLabel(this);
    m_outcome->setObjectName(QStringLiteral("outcomeLabel"));
    m_outcome->setAlignment(Qt::AlignCenter);
    layout->addWidget(m_outcome);
    m_turns = addField(tr("Round trips"),
        tr("Model round trips, from the result lines (num_turns); the tree shows the prompts' "
           "turns"));
    m_tools = addField(tr("Tool calls"), tr("Distinct tool calls; failed and unanswered ones"));
    m_tokens = addField(tr("Tokens"),
        tr("Input and output tokens as the CLI bills them: its result lines' usage of every "
           "model, sub-agents included (without result lines: each API response once). The "
           "tree's Tokens column adds up the API responses it shows under each node."));
    m_cache = addField(tr("Cache"),
        tr("Prompt-cache tokens, counted like the tokens: read from the cache plus written to "
           "it"));
    m_errors = addField(
        tr("Errors"), tr("Failed tool calls (a tool_result with is_error) and API error messages"));
    m_cost = addField(tr("Cost"),
        tr("total_cost_usd of the last result line (a transcript: of its last cost-state "
           "record)"));
    m_duration = addField(tr("Duration"),
        tr("duration_ms of the result lines (a transcript: from each prompt to its turn's end)"));
    m_session = addField(tr("Session"), QString());
    m_session->setTextInteractionFlags(Qt::TextSelectableByMouse);
    clear();
}

QLabel *RunSummaryBar::addField(const QString &name, const QString &toolTip)
{
    auto *label = new QLabel(this);
    label->setProperty("fieldName", name);
    label->setToolTip(toolTip);
    label->setTextFormat(Qt::RichText);
    layout()->addWidget(label);
    return label;
}

static void setField(QLabel *label, const QString &value)
{
    const QString name = label->property("fieldName").toString();
    const QPalette palette = label->palette();
    const QColor text = palette.color(QPalette::WindowText);
    const QColor window = palette.color(QPalette::Window);
    const QColor muted = QColor::fromRgbF((text.redF() * 3 + window.redF() * 2) / 5,
        (text.greenF() * 3 + window.greenF() * 2) / 5, (text.blueF() * 3 + window.blueF() * 2) / 5);
    label->setText(QStringLiteral("<span style=\"color:%1\">%2</span>&nbsp; <b>%3</b>")
                       .arg(muted.name(), name.toHtmlEscaped(), value.toHtmlEscaped()));
    label->setAccessibleName(name + QStringLiteral(": ") + value);
}

void RunSummaryBar::setOutcome(const QString &text, RunModel::Status status)
{
    const QColor fg = RunDelegate::statusColor(status, palette());
    const QColor bg = RunDelegate::statusFill(status, palette());
    m_outcome->setText(text);
    m_outcome->setStyleSheet(
        QStringLiteral("QLabel { color: %1; background: %2; border-radius: 9px; padding: 1px 10px;"
                       " font-weight: bold; }")
            .arg(fg.name(), bg.name()));
}

void RunSummaryBar::clear()
{
    setOutcome(tr("No run"), RunModel::Status::None);
    for (QLabel *label :
        {m_turns, m_tools, m_tokens, m_cache, m_errors, m_cost, m_duration, m_session})
        setField(label, QStringLiteral("–"));
}

void RunSummaryBar::setSummary(const RunSummary &summary, bool runEnded)
{
    using Status = RunModel::Status;
    // A transcript has no result lines: a turn ends with its cost-state record, which also
    // carries the session's cost; the duration is its turns' spans. It counts no round trips.
    const bool transcript = summary.isTranscript && !summary.hasResult;
    if (transcript && summary.turnOpen)
        setOutcome(tr("Turn running"), Status::Running);
    else if (transcript && summary.turnFailed)
        setOutcome(tr("Failed · API error"), Status::Error);
    else if (transcript)
        setOutcome(tr("Turn ended"), Status::Ok);
    else if (!runEnded && !summary.hasResult)
        setOutcome(tr("Running"), Status::Running);
    else if (!summary.hasResult)
        setOutcome(tr("Interrupted · no result"), Status::Interrupted);
    else if (summary.isError)
        // "success" with is_error (an API error ended the turn) would read as a contradiction.
        setOutcome(summary.resultSubtype.startsWith(QLatin1String("error"))
                ? tr("Failed · %1").arg(summary.resultSubtype)
                : tr("Failed"),
            Status::Error);
    else if (!runEnded)
        setOutcome(tr("Running"), Status::Running);
    else
        setOutcome(tr("Succeeded"), Status::Ok);

    const QLocale locale;
    setField(m_turns, summary.hasResult ? locale.toString(summary.numTurns) : QStringLiteral("–"));
    QString tools = locale.toString(summary.toolCalls);
    if (summary.toolErrors > 0 || summary.unmatchedToolCalls > 0)
        tools += tr(" (%1 failed, %2 unanswered)")
                     .arg(locale.toString(summary.toolErrors),
                         locale.toString(summary.unmatchedToolCalls));
    setField(m_tools, tools);
    setField(m_tokens,
        tr("%1 in · %2 out")
            .arg(locale.toString(summary.inputTokens), locale.toString(summary.outputTokens)));
    setField(m_cache, locale.toString(summary.cacheReadTokens + summary.cacheCreationTokens));
    m_cache->setToolTip(tr("Prompt-cache tokens: %1 read, %2 written")
                            .arg(locale.toString(summary.cacheReadTokens),
                                locale.toString(summary.cacheCreationTokens)));
    // A transcript has no result lines, so no round trips: the field would only say "–".
    m_turns->setVisible(!transcript);
    setField(m_errors, locale.toString(summary.toolErrors + summary.apiErrors));
    const bool costed = summary.hasResult || (transcript && summary.costUsd > 0);
    setField(m_cost,
        costed ? QStringLiteral("$%1").arg(summary.costUsd, 0, 'f', 6) : QStringLiteral("–"));
    const bool timed = summary.hasResult || (transcript && summary.durationMs > 0);
    setField(m_duration, timed ? format::duration(summary.durationMs) : QStringLiteral("–"));
    setField(
        m_session, summary.sessionId.isEmpty() ? QStringLiteral("–") : summary.sessionId.left(8));
    m_session->setToolTip(summary.sessionId);
}

QString RunSummaryBar::outcomeText() const
{
    return m_outcome->text();
}

QString RunSummaryBar::text() const
{
    QStringList parts {m_outcome->text()};
    for (QLabel *label :
        {m_turns, m_tools, m_tokens, m_cache, m_errors, m_cost, m_duration, m_session})
        parts.append(label->accessibleName());
    return parts.join(QStringLiteral(" | "));
}

} // namespace sandscope
