#include "runsummarybar.h"

#include "flowlayout.h"
#include "runs/rundelegate.h"
#include "streamjson/runfacts.h"
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
    // The labels and definitions of docs/stream-json.md, "Figures" (runfacts).
    m_turns
        = addField(runfacts::turnsLabel(), tr("Prompts that started work: the tree's Turn nodes"));
    m_roundTrips = addField(runfacts::roundTripsLabel(), QString()); // its tooltip: setSummary
    m_tools = addField(tr("Tool calls"), tr("Distinct tool calls; failed and unanswered ones"));
    m_tokens = addField(tr("Tokens"),
        tr("Input and output tokens, per turn: its result lines' usage of every model, "
           "sub-agents included (final counts); a turn without a result yet: each API response "
           "once. The run node in the tree shows the same."));
    m_cache = addField(tr("Cache"),
        tr("Prompt-cache tokens, counted like the tokens: read from the cache plus written to "
           "it"));
    m_errors = addField(
        tr("Errors"), tr("Failed tool calls (a tool_result with is_error) and API error messages"));
    m_cost = addField(tr("Cost"),
        tr("total_cost_usd of the last result line (a transcript: of its last cost-state "
           "record)"));
    m_duration = addField(tr("Duration"),
        tr("From the run's first line to the end of its last turn, on the run's clock (arrival "
           "times; a transcript's own timestamps)"));
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
    for (QLabel *label : {m_turns, m_roundTrips, m_tools, m_tokens, m_cache, m_errors, m_cost,
             m_duration, m_session})
        setField(label, QStringLiteral("–"));
}

void RunSummaryBar::setSummary(const RunSummary &summary, bool runEnded)
{
    const runfacts::Outcome outcome = runfacts::outcomeOf(summary, !runEnded);
    QString text = runfacts::outcomeText(summary, !runEnded);
    text[0] = text[0].toUpper();
    switch (outcome) {
    case runfacts::Outcome::Running:
        setOutcome(text, RunModel::Status::Running);
        break;
    case runfacts::Outcome::Succeeded:
        setOutcome(text, RunModel::Status::Ok);
        break;
    case runfacts::Outcome::Failed:
        setOutcome(text, RunModel::Status::Error);
        break;
    case runfacts::Outcome::Interrupted:
        setOutcome(text, RunModel::Status::Interrupted);
        break;
    }

    const QLocale locale;
    setField(m_turns, locale.toString(summary.turns));
    // A transcript has no result lines, so no round trips: a dash that says why, never "0".
    const QString roundTripsTip = tr("API calls, from the result lines (claude's num_turns)");
    if (summary.roundTripsRecorded()) {
        setField(m_roundTrips, locale.toString(summary.roundTrips));
        m_roundTrips->setToolTip(roundTripsTip);
    } else {
        setField(m_roundTrips, QStringLiteral("—"));
        m_roundTrips->setAccessibleName(
            runfacts::roundTripsLabel() + QStringLiteral(": ") + runfacts::notRecordedText());
        m_roundTrips->setToolTip(runfacts::notRecordedText() + QStringLiteral(": ")
            + runfacts::roundTripsNotRecordedReason(summary));
    }
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
    setField(m_errors, locale.toString(summary.toolErrors + summary.apiErrors));
    const bool costed = summary.hasResult || summary.costUsd > 0;
    setField(m_cost,
        costed ? QStringLiteral("$%1").arg(summary.costUsd, 0, 'f', 6) : QStringLiteral("–"));
    setField(m_duration, format::duration(summary.durationMs));
    QString durationTip = tr("From the run's first line to the end of its last turn, on the "
                             "run's clock (arrival times; a transcript's own timestamps)");
    if (summary.claudeDurationMs >= 0)
        durationTip += tr("; %1 (the result lines' duration_ms): %2")
                           .arg(runfacts::claudeDurationLabel(),
                               format::duration(summary.claudeDurationMs));
    m_duration->setToolTip(durationTip);
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
    for (QLabel *label : {m_turns, m_roundTrips, m_tools, m_tokens, m_cache, m_errors, m_cost,
             m_duration, m_session})
        parts.append(label->accessibleName());
    return parts.join(QStringLiteral(" | "));
}

} // namespace sandscope
