#include "rundelegate.h"

#include <QApplication>
#include <QHash>
#include <QPainter>
#include <QPainterPath>

// The icons live in the static sandscope_gui library; the page can be used without the main
// window (tests, benchmarks), so it registers them itself. Must be outside any namespace.
static void initRunResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace sandscope {

namespace {

using Kind = RunModel::NodeKind;
using Status = RunModel::Status;
using ToolKind = RunModel::ToolKind;

constexpr int iconSize = 16;
constexpr int horizontalPadding = 4;
constexpr int iconGap = 6;

QString iconName(const QModelIndex &index)
{
    const auto kind = Kind(index.data(RunModel::KindRole).toInt());
    const auto status = Status(index.data(RunModel::StatusRole).toInt());
    switch (kind) {
    case Kind::Run:
        return status == Status::Error ? QStringLiteral("error") : QStringLiteral("run");
    case Kind::Turn:
        return QStringLiteral("turn");
    case Kind::AssistantText:
        return QStringLiteral("text");
    case Kind::Thinking:
        return QStringLiteral("thinking");
    case Kind::UserText:
        return QStringLiteral("user");
    case Kind::ApiRetry:
        return QStringLiteral("retry");
    case Kind::ApiError:
        return QStringLiteral("error");
    case Kind::PermissionDenied:
        return QStringLiteral("denied");
    case Kind::Result:
        return status == Status::Error ? QStringLiteral("error") : QStringLiteral("result");
    case Kind::CompactBoundary:
        return QStringLiteral("compact");
    case Kind::SystemNotice:
        return status == Status::Error ? QStringLiteral("error") : QStringLiteral("notice");
    case Kind::Raw:
        return status == Status::Error ? QStringLiteral("error") : QStringLiteral("raw");
    case Kind::ToolCall:
        break;
    }
    switch (ToolKind(index.data(RunModel::ToolKindRole).toInt())) {
    case ToolKind::Shell:
        return QStringLiteral("terminal");
    case ToolKind::Read:
        return QStringLiteral("file-read");
    case ToolKind::Write:
        return QStringLiteral("file-write");
    case ToolKind::Edit:
    case ToolKind::Notebook:
        return QStringLiteral("edit");
    case ToolKind::Search:
        return QStringLiteral("search");
    case ToolKind::Web:
        return QStringLiteral("web");
    case ToolKind::Agent:
        return QStringLiteral("agent");
    case ToolKind::Todo:
        return QStringLiteral("todo");
    case ToolKind::Mcp:
        return QStringLiteral("plug");
    case ToolKind::None:
    case ToolKind::Other:
        break;
    }
    return QStringLiteral("tool");
}

QColor mixed(const QColor &a, const QColor &b, double weightOfB)
{
    return QColor::fromRgbF(a.redF() * (1 - weightOfB) + b.redF() * weightOfB,
        a.greenF() * (1 - weightOfB) + b.greenF() * weightOfB,
        a.blueF() * (1 - weightOfB) + b.blueF() * weightOfB);
}

// Text colour of the summary column: errors stand out, interruptions recede.
QColor summaryColor(const QModelIndex &index, const QPalette &palette)
{
    const auto kind = Kind(index.data(RunModel::KindRole).toInt());
    const auto status = Status(index.data(RunModel::StatusRole).toInt());
    if (kind == Kind::Run || kind == Kind::Turn)
        return palette.color(QPalette::Text);
    switch (status) {
    case Status::Error:
    case Status::Denied:
    case Status::Retrying:
        return RunDelegate::statusColor(status, palette);
    case Status::Interrupted:
        return mixed(palette.color(QPalette::Text), palette.color(QPalette::Base), 0.45);
    case Status::None:
    case Status::Running:
    case Status::Ok:
    case Status::Background:
        break;
    }
    if (kind == Kind::ApiError || kind == Kind::PermissionDenied)
        return RunDelegate::statusColor(Status::Error, palette);
    if (kind == Kind::Thinking || kind == Kind::SystemNotice || kind == Kind::Raw)
        return mixed(palette.color(QPalette::Text), palette.color(QPalette::Base), 0.35);
    return palette.color(QPalette::Text);
}

} // namespace

RunDelegate::RunDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{
    initRunResources();
}

bool RunDelegate::isDark(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

QIcon RunDelegate::icon(const QString &name)
{
    static QHash<QString, QIcon> cache;
    auto it = cache.find(name);
    if (it == cache.end()) {
        initRunResources();
        it = cache.insert(name, QIcon(QStringLiteral(":/sandscope/icons/run/%1.svg").arg(name)));
    }
    return *it;
}

QIcon RunDelegate::iconFor(const QModelIndex &index)
{
    return icon(iconName(index));
}

QString RunDelegate::statusLabel(RunModel::Status status)
{
    switch (status) {
    case Status::None:
        return {};
    case Status::Running:
        return tr("running");
    case Status::Ok:
        return tr("ok");
    case Status::Error:
        return tr("error");
    case Status::Interrupted:
        return tr("interrupted");
    case Status::Denied:
        return tr("denied");
    case Status::Retrying:
        return tr("retrying");
    case Status::Background:
        return tr("background");
    }
    return {};
}

QColor RunDelegate::statusColor(RunModel::Status status, const QPalette &palette)
{
    const bool dark = isDark(palette);
    switch (status) {
    case Status::Running:
        return dark ? QColor(0x8a, 0xb4, 0xf8) : QColor(0x1f, 0x5f, 0xbf);
    case Status::Ok:
        return dark ? QColor(0x7e, 0xe2, 0xa8) : QColor(0x1f, 0x7a, 0x3d);
    case Status::Error:
        return dark ? QColor(0xff, 0x8f, 0x85) : QColor(0xb4, 0x23, 0x18);
    case Status::Interrupted:
        return dark ? QColor(0xb0, 0xb4, 0xba) : QColor(0x5f, 0x63, 0x6a);
    case Status::Denied:
        return dark ? QColor(0xf2, 0x9b, 0xb4) : QColor(0xa3, 0x32, 0x4f);
    case Status::Retrying:
        return dark ? QColor(0xf5, 0xc2, 0x6b) : QColor(0x9a, 0x5b, 0x00);
    case Status::Background:
        return dark ? QColor(0x7f, 0xd6, 0xe0) : QColor(0x1d, 0x6f, 0x7a);
    case Status::None:
        break;
    }
    return palette.color(QPalette::Text);
}

QColor RunDelegate::statusFill(RunModel::Status status, const QPalette &palette)
{
    return mixed(
        palette.color(QPalette::Base), statusColor(status, palette), isDark(palette) ? 0.22 : 0.13);
}

void RunDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    switch (index.column()) {
    case RunModel::SummaryColumn:
        option->icon = iconFor(index);
        option->features |= QStyleOptionViewItem::HasDecoration;
        option->decorationSize = QSize(iconSize, iconSize);
        break;
    case RunModel::DurationColumn:
    case RunModel::TokensColumn:
    case RunModel::CostColumn:
    case RunModel::ToolCallsColumn:
    case RunModel::ErrorsColumn:
        option->displayAlignment = Qt::AlignRight | Qt::AlignVCenter;
        option->palette.setColor(QPalette::Text,
            mixed(option->palette.color(QPalette::Text), option->palette.color(QPalette::Base),
                0.25));
        break;
    default:
        break;
    }
}

QSize RunDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setHeight(std::max(size.height(), option.fontMetrics.height()) + 6);
    return size;
}

void RunDelegate::paint(
    QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    switch (index.column()) {
    case RunModel::SummaryColumn:
        paintSummary(painter, option, index);
        break;
    case RunModel::StatusColumn:
        paintStatus(painter, option, index);
        break;
    default:
        QStyledItemDelegate::paint(painter, option, index);
    }
}

void RunDelegate::paintSummary(
    QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QWidget *widget = opt.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    const QIcon nodeIcon = opt.icon;
    opt.text.clear();
    opt.icon = QIcon();
    opt.features &= ~QStyleOptionViewItem::HasDecoration;
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget); // background, focus

    const bool selected = opt.state & QStyle::State_Selected;
    QRect rect = opt.rect.adjusted(horizontalPadding, 0, -horizontalPadding, 0);
    const QRect iconRect(
        rect.left(), rect.top() + (rect.height() - iconSize) / 2, iconSize, iconSize);
    nodeIcon.paint(painter, iconRect, Qt::AlignCenter,
        (opt.state & QStyle::State_Enabled) ? QIcon::Normal : QIcon::Disabled);
    rect.setLeft(iconRect.right() + 1 + iconGap);

    const auto kind = Kind(index.data(RunModel::KindRole).toInt());
    const auto status = Status(index.data(RunModel::StatusRole).toInt());
    QString lead; // bold part
    QString rest;
    if (kind == Kind::ToolCall) {
        lead = index.data(RunModel::ToolNameRole).toString();
        rest = index.data(RunModel::SummaryRole).toString();
        if (lead.isEmpty()) {
            lead = tr("tool call");
            rest = index.data(RunModel::ToolUseIdRole).toString();
        }
    } else if (kind == Kind::Run || kind == Kind::Turn) {
        lead = index.data(Qt::DisplayRole).toString();
    } else {
        rest = index.data(Qt::DisplayRole).toString();
    }

    const QColor color = selected ? opt.palette.color(QPalette::HighlightedText)
                                  : summaryColor(index, opt.palette);
    painter->save();
    painter->setClipRect(opt.rect);
    painter->setPen(color);
    QFont boldFont = opt.font;
    boldFont.setBold(true);
    QFont restFont = opt.font;
    if (kind == Kind::Thinking || status == Status::Interrupted)
        restFont.setItalic(true);
    const int baseline
        = rect.top() + (rect.height() - opt.fontMetrics.height()) / 2 + opt.fontMetrics.ascent();
    int x = rect.left();
    if (!lead.isEmpty()) {
        const QFontMetrics metrics(boldFont);
        const QString shown = metrics.elidedText(lead, Qt::ElideRight, rect.right() - x);
        painter->setFont(boldFont);
        painter->drawText(x, baseline, shown);
        x += metrics.horizontalAdvance(shown) + metrics.horizontalAdvance(QLatin1Char(' ')) * 2;
    }
    if (!rest.isEmpty() && x < rect.right()) {
        const QFontMetrics metrics(restFont);
        rest.replace(QLatin1Char('\n'), QLatin1Char(' '));
        painter->setFont(restFont);
        painter->drawText(x, baseline, metrics.elidedText(rest, Qt::ElideRight, rect.right() - x));
    }
    painter->restore();
}

void RunDelegate::paintStatus(
    QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();
    const QWidget *widget = opt.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const auto status = Status(index.data(RunModel::StatusRole).toInt());
    const QString label = statusLabel(status);
    if (label.isEmpty())
        return;
    QFont font = opt.font;
    font.setPointSizeF(font.pointSizeF() * 0.9);
    font.setBold(true);
    const QFontMetrics metrics(font);
    const int height = metrics.height() + 2;
    const int width = std::min(metrics.horizontalAdvance(label) + 14, opt.rect.width() - 8);
    const QRectF pill(
        opt.rect.left() + 6, opt.rect.top() + (opt.rect.height() - height) / 2.0, width, height);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(Qt::NoPen);
    painter->setBrush(statusFill(status, opt.palette));
    painter->drawRoundedRect(pill, height / 2.0, height / 2.0);
    painter->setPen(statusColor(status, opt.palette));
    painter->setFont(font);
    painter->drawText(
        pill, Qt::AlignCenter, metrics.elidedText(label, Qt::ElideRight, int(pill.width()) - 6));
    painter->restore();
}

} // namespace sandscope
