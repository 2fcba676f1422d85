#include "timelinedelegate.h"

#include "runs/rundelegate.h"

#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>

namespace sandscope {

namespace {

using ToolKind = RunModel::ToolKind;
using Status = RunModel::Status;
using MarkKind = TimelineModel::MarkKind;

// Readable text on a fill.
QColor textOn(const QColor &fill)
{
    const double luminance = 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF();
    return luminance > 0.6 ? QColor(0x20, 0x21, 0x24) : QColor(Qt::white);
}

} // namespace

TimelineDelegate::TimelineDelegate(QObject *parent)
    : QAbstractItemDelegate(parent)
{
}

QColor TimelineDelegate::mixed(const QColor &a, const QColor &b, double weightOfB)
{
    return QColor::fromRgbF(a.redF() * (1 - weightOfB) + b.redF() * weightOfB,
        a.greenF() * (1 - weightOfB) + b.greenF() * weightOfB,
        a.blueF() * (1 - weightOfB) + b.blueF() * weightOfB);
}

QColor TimelineDelegate::toolColor(RunModel::ToolKind kind, const QPalette &palette)
{
    // Muted, told apart by hue; errors and denials keep the strong reds for themselves.
    QColor color;
    switch (kind) {
    case ToolKind::Shell:
        color = QColor(0x4c, 0x78, 0xa8);
        break;
    case ToolKind::Read:
        color = QColor(0x5a, 0xa5, 0xa0);
        break;
    case ToolKind::Write:
        color = QColor(0x54, 0x9e, 0x4b);
        break;
    case ToolKind::Edit:
        color = QColor(0x86, 0xa8, 0x3c);
        break;
    case ToolKind::Search:
        color = QColor(0x9c, 0x6f, 0xb0);
        break;
    case ToolKind::Web:
        color = QColor(0x9d, 0x75, 0x5d);
        break;
    case ToolKind::Agent:
        color = QColor(0xe0, 0x8a, 0x2c);
        break;
    case ToolKind::Todo:
        color = QColor(0x8f, 0x8a, 0x86);
        break;
    case ToolKind::Mcp:
        color = QColor(0xc9, 0xa8, 0x2a);
        break;
    case ToolKind::Notebook:
        color = QColor(0xd0, 0x7a, 0x9a);
        break;
    case ToolKind::None:
    case ToolKind::Other:
        color = QColor(0x6f, 0x7c, 0x8a);
        break;
    }
    return RunDelegate::isDark(palette) ? color.lighter(125) : color;
}

QColor TimelineDelegate::callColor(
    RunModel::ToolKind kind, RunModel::Status status, const QPalette &palette)
{
    switch (status) {
    case Status::Error:
    case Status::Denied:
        return RunDelegate::statusColor(status, palette);
    case Status::Interrupted:
        return mixed(RunDelegate::statusColor(status, palette), palette.color(QPalette::Base), 0.3);
    default:
        return toolColor(kind, palette);
    }
}

QColor TimelineDelegate::markColor(TimelineModel::MarkKind kind, const QPalette &palette)
{
    const bool dark = RunDelegate::isDark(palette);
    switch (kind) {
    case MarkKind::Text:
        return mixed(palette.color(QPalette::Text), palette.color(QPalette::Base), 0.35);
    case MarkKind::Thinking:
        return dark ? QColor(0xc3, 0xa6, 0xf0) : QColor(0x7a, 0x4f, 0xc0);
    case MarkKind::Prompt:
        return RunDelegate::statusColor(Status::Running, palette);
    case MarkKind::Retry:
        return RunDelegate::statusColor(Status::Retrying, palette);
    case MarkKind::Error:
        return RunDelegate::statusColor(Status::Error, palette);
    case MarkKind::Denied:
        return RunDelegate::statusColor(Status::Denied, palette);
    case MarkKind::None:
        break;
    }
    return palette.color(QPalette::Text);
}

int TimelineDelegate::severity(RunModel::Status status)
{
    switch (status) {
    case Status::Error:
        return 5;
    case Status::Denied:
        return 4;
    case Status::Interrupted:
        return 3;
    case Status::Running:
    case Status::Background:
        return 2;
    case Status::Retrying:
        return 1;
    default:
        return 0;
    }
}

void TimelineDelegate::paintCall(QPainter *painter, const QRectF &rect, RunModel::ToolKind kind,
    RunModel::Status status, bool open, const QString &label, QStyle::State state,
    const QPalette &palette) const
{
    const QColor fill = callColor(kind, status, palette);
    const bool problem = status == Status::Error || status == Status::Denied;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, rect.width() > 4);
    const double radius = std::min(3.0, rect.width() / 3);
    QPainterPath path;
    path.addRoundedRect(rect, radius, radius);
    if (open && status != Status::Interrupted && rect.width() > 12) {
        // Still running: the growing end fades out.
        QLinearGradient gradient(rect.topLeft(), rect.topRight());
        gradient.setColorAt(0, fill);
        gradient.setColorAt(std::max(0.0, 1 - 24 / rect.width()), fill);
        gradient.setColorAt(1, mixed(fill, palette.color(QPalette::Base), 0.7));
        painter->fillPath(path, gradient);
    } else {
        painter->fillPath(path, fill);
    }
    if (status == Status::Denied || status == Status::Interrupted) {
        painter->fillPath(
            path, QBrush(mixed(fill, palette.color(QPalette::Base), 0.55), Qt::BDiagPattern));
    }
    if (problem || (state & QStyle::State_Selected)) {
        painter->setPen(QPen(
            problem ? fill.darker(150) : palette.color(QPalette::Highlight), problem ? 1.0 : 2.0));
        painter->drawPath(path);
    }
    if (!label.isEmpty() && rect.width() > 28) {
        const QRectF textRect = rect.adjusted(4, 0, -3, 0);
        painter->setPen(textOn(fill));
        const QString shown
            = painter->fontMetrics().elidedText(label, Qt::ElideRight, int(textRect.width()));
        if (!shown.isEmpty() && shown != QString(QChar(0x2026)))
            painter->drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft, shown);
    }
    painter->restore();
}

// Clusters, marks and bands are filled on whole pixels: a fractional rectangle takes the
// rasterizer's slow path, and a fitted run paints thousands of them.
void TimelineDelegate::paintCluster(QPainter *painter, const QRectF &rect, RunModel::ToolKind kind,
    RunModel::Status status, const QPalette &palette) const
{
    painter->fillRect(rect.toAlignedRect(), callColor(kind, status, palette));
}

void TimelineDelegate::paintMark(QPainter *painter, const QRectF &rect,
    TimelineModel::MarkKind kind, QStyle::State state, const QPalette &palette) const
{
    const QColor color = markColor(kind, palette);
    const bool loud = kind == MarkKind::Error || kind == MarkKind::Denied;
    if (loud) {
        // A small triangle above the tick, so an error stands out among many marks.
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        const double x = rect.center().x();
        const double half = std::max(3.0, rect.height() / 4);
        QPainterPath triangle;
        triangle.moveTo(x - half, rect.top());
        triangle.lineTo(x + half, rect.top());
        triangle.lineTo(x, rect.top() + half * 1.6);
        triangle.closeSubpath();
        painter->fillPath(triangle, color);
        painter->restore();
    }
    painter->fillRect(rect.toAlignedRect(), color);
    if (state & QStyle::State_Selected)
        paintFocus(painter, rect, true, true, palette);
}

void TimelineDelegate::paintTurnBand(QPainter *painter, const QRectF &rect, bool odd,
    QStyle::State state, const QPalette &palette) const
{
    const QColor base = palette.color(QPalette::Base);
    // Every turn is tinted (the time between turns is not), every other one a little more.
    QColor fill = mixed(base, palette.color(QPalette::Text), odd ? 0.05 : 0.025);
    if (state & QStyle::State_Selected)
        fill = mixed(base, palette.color(QPalette::Highlight), 0.12);
    const QRect pixels = rect.toAlignedRect();
    painter->fillRect(pixels, fill);
    painter->fillRect(QRect(pixels.left(), pixels.top(), 1, pixels.height()),
        mixed(base, palette.color(QPalette::Text), 0.18));
}

void TimelineDelegate::paintFocus(QPainter *painter, const QRectF &rect, bool selected, bool isMark,
    const QPalette &palette) const
{
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QColor color = palette.color(QPalette::Highlight);
    if (!selected)
        color = mixed(color, palette.color(QPalette::Base), 0.4);
    painter->setPen(QPen(color, selected ? 2.0 : 1.0));
    painter->setBrush(Qt::NoBrush);
    const QRectF outline
        = isMark ? rect.adjusted(-3, -1, 3, 1) : rect.adjusted(-1.5, -1.5, 1.5, 1.5);
    painter->drawRoundedRect(outline, 3, 3);
    painter->restore();
}

void TimelineDelegate::paint(
    QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const auto kind = TimelineModel::ItemKind(index.data(TimelineModel::ItemKindRole).toInt());
    switch (kind) {
    case TimelineModel::ItemKind::Call:
        paintCall(painter, option.rect,
            RunModel::ToolKind(index.data(TimelineModel::ToolKindRole).toInt()),
            RunModel::Status(index.data(TimelineModel::StatusRole).toInt()),
            index.data(TimelineModel::OpenRole).toBool(), index.data().toString(), option.state,
            option.palette);
        break;
    case TimelineModel::ItemKind::Mark:
        paintMark(painter, option.rect,
            TimelineModel::MarkKind(index.data(TimelineModel::MarkKindRole).toInt()), option.state,
            option.palette);
        break;
    case TimelineModel::ItemKind::Turn:
        paintTurnBand(painter, option.rect, index.data(TimelineModel::TurnRole).toInt() % 2 == 0,
            option.state, option.palette);
        break;
    }
}

QSize TimelineDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const
{
    return QSize(0, option.fontMetrics.height() + 6);
}

} // namespace sandscope
