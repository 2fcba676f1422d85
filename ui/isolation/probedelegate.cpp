#include "probedelegate.h"

#include "probereport/probematrixmodel.h"

#include <QPainter>
#include <QPainterPath>

namespace sandscope {

namespace {

// The accent of each verdict; cells show it blended into the palette's base colour.
QColor accent(Verdict verdict, const QPalette &palette)
{
    switch (verdict) {
    case Verdict::Pass:
        return QColor(0x2e, 0x9d, 0x4a);
    case Verdict::Fail:
        return QColor(0xd3, 0x2f, 0x2f);
    case Verdict::Error:
        return QColor(0xf0, 0x9a, 0x00);
    case Verdict::Info:
        break;
    }
    return palette.color(QPalette::Text);
}

QColor blend(const QColor &base, const QColor &over, double amount)
{
    const auto channel = [amount](double from, double to) {
        return from + (to - from) * amount;
    };
    return QColor::fromRgbF(channel(base.redF(), over.redF()),
        channel(base.greenF(), over.greenF()), channel(base.blueF(), over.blueF()));
}

constexpr int cellPadding = 8;

} // namespace

ProbeDelegate::ProbeDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{
}

bool ProbeDelegate::isDark(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

QColor ProbeDelegate::fillColor(Verdict verdict, const QPalette &palette)
{
    const QColor base = palette.color(QPalette::Base);
    if (verdict == Verdict::Info) // neutral: a faint tint of the text colour
        return blend(base, palette.color(QPalette::Text), isDark(palette) ? 0.14 : 0.08);
    return blend(base, accent(verdict, palette), isDark(palette) ? 0.42 : 0.30);
}

QColor ProbeDelegate::stripeColor(const QPalette &palette)
{
    return blend(palette.color(QPalette::Base), accent(Verdict::Error, palette),
        isDark(palette) ? 0.75 : 0.65);
}

QColor ProbeDelegate::textColor(Verdict verdict, const QPalette &palette)
{
    if (verdict == Verdict::Info)
        return palette.color(QPalette::Text);
    // Darker than the fill on light palettes, lighter on dark ones, for contrast.
    return isDark(palette) ? blend(accent(verdict, palette), Qt::white, 0.6)
                           : blend(accent(verdict, palette), Qt::black, 0.55);
}

QString ProbeDelegate::cellText(Verdict verdict, const QString &severity)
{
    if (verdict == Verdict::Fail && !severity.isEmpty())
        return verdictName(verdict) + QStringLiteral(" · ") + severity;
    return verdictName(verdict);
}

void ProbeDelegate::paint(
    QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QVariant verdictValue = index.data(ProbeMatrixModel::VerdictRole);
    const bool applicable = index.data(ProbeMatrixModel::ApplicableRole).toBool();
    if (!verdictValue.isValid() || !applicable) {
        // No result (yet) or a cell that does not apply: the plain item, text faded.
        QStyleOptionViewItem faded = option;
        faded.palette.setColor(QPalette::Text,
            blend(
                option.palette.color(QPalette::Text), option.palette.color(QPalette::Base), 0.55));
        QStyledItemDelegate::paint(painter, faded, index);
        return;
    }

    const auto verdict = Verdict(verdictValue.toInt());
    const QPalette &palette = option.palette;
    const QRect cell = option.rect.adjusted(1, 1, -1, -1);
    painter->save();
    painter->fillRect(cell, fillColor(verdict, palette));
    if (verdict == Verdict::Error)
        painter->fillRect(cell, QBrush(stripeColor(palette), Qt::BDiagPattern));

    if (!index.data(ChangedRole).toString().isEmpty()) {
        // A corner triangle in the highlight colour: changed since the compared report.
        const int size = std::min(cell.height() / 2, 10);
        QPainterPath corner;
        corner.moveTo(cell.topRight() + QPoint(1, 0));
        corner.lineTo(cell.topRight() + QPoint(1 - size, 0));
        corner.lineTo(cell.topRight() + QPoint(1, size));
        corner.closeSubpath();
        painter->fillPath(corner, palette.color(QPalette::Highlight));
    }

    if (option.state & QStyle::State_Selected) {
        // A frame instead of the selection fill, so the verdict colour stays visible.
        painter->setPen(QPen(palette.color(QPalette::Highlight), 2));
        painter->drawRect(cell.adjusted(1, 1, -1, -1));
    }

    QFont font = option.font;
    font.setBold(verdict == Verdict::Fail || verdict == Verdict::Error);
    painter->setFont(font);
    painter->setPen(textColor(verdict, palette));
    const QString text = cellText(verdict, index.data(ProbeMatrixModel::SeverityRole).toString());
    painter->drawText(cell.adjusted(cellPadding / 2, 0, -cellPadding / 2, 0), Qt::AlignCenter,
        QFontMetrics(font).elidedText(text, Qt::ElideRight, cell.width() - cellPadding));
    painter->restore();
}

QSize ProbeDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    QFont bold = option.font;
    bold.setBold(true);
    int widest = 0;
    for (Severity severity :
        {Severity::Info, Severity::Low, Severity::Medium, Severity::High, Severity::Critical})
        widest = std::max(widest,
            QFontMetrics(bold).horizontalAdvance(cellText(Verdict::Fail, severityName(severity))));
    size.setWidth(std::max(size.width(), widest + 2 * cellPadding));
    size.setHeight(std::max(size.height(), option.fontMetrics.height() + 8));
    return size;
}

} // namespace sandscope
