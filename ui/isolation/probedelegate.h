#pragma once
// Paints the cells of the isolation-probe matrix: PASS green, FAIL red with the check's
// severity, INFO neutral and ERROR amber with stripes, so a check that could not run never
// looks like a PASS. The verdict is always written in the cell too (colour is not the only
// cue). Colours are mixed into the view's palette, so light and dark palettes both work.
// Cells that differ from a compared report get a corner mark.

#include "probereport/probereport.h"

#include <QColor>
#include <QStyledItemDelegate>

namespace sandscope {

class ProbeDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    // Non-empty text on a cell = it changed since the compared report (the description).
    static constexpr int ChangedRole = Qt::UserRole + 100;

    explicit ProbeDelegate(QObject *parent = nullptr);

    static bool isDark(const QPalette &palette);
    // Background of a verdict cell on this palette; ERROR cells also get stripes.
    static QColor fillColor(Verdict verdict, const QPalette &palette);
    static QColor stripeColor(const QPalette &palette);
    static QColor textColor(Verdict verdict, const QPalette &palette);
    // What the cell says: "PASS", "FAIL · high", ...
    static QString cellText(Verdict verdict, const QString &severity);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
        const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace sandscope
