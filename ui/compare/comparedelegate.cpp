#include "comparedelegate.h"

#include "runs/rundelegate.h"

namespace sandscope {

CompareDelegate::CompareDelegate(
    std::function<RunComparison::State(const QModelIndex &)> stateOf, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_stateOf(std::move(stateOf))
{
}

QColor CompareDelegate::tint(RunComparison::State state, const QPalette &palette)
{
    const bool dark = RunDelegate::isDark(palette);
    switch (state) {
    case RunComparison::State::Same:
        return {};
    case RunComparison::State::Changed:
        return dark ? QColor(0x5c, 0x4a, 0x12) : QColor(0xff, 0xf1, 0xc2);
    case RunComparison::State::Added:
        return dark ? QColor(0x1d, 0x4d, 0x2a) : QColor(0xd8, 0xf5, 0xdd);
    case RunComparison::State::Removed:
        return dark ? QColor(0x5c, 0x22, 0x22) : QColor(0xfd, 0xdc, 0xdc);
    }
    return {};
}

void CompareDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    const QColor colour = tint(m_stateOf(index), option->palette);
    if (colour.isValid())
        option->backgroundBrush = colour;
}

} // namespace sandscope
