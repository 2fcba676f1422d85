#include "paintedlockicon.h"

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

namespace sandscope {

QIcon paintedLockIcon(bool locked, const QColor &colour)
{
    QIcon icon;
    for (const int size : {16, 22, 32, 48}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        const qreal unit = size / 16.0;
        QPen pen(colour, 1.6 * unit);
        pen.setCapStyle(Qt::RoundCap);
        painter.setPen(pen);
        painter.setBrush(Qt::NoBrush);
        // The shackle: closed over the body, or swung open to the right.
        QPainterPath shackle;
        const qreal left = 4.5 * unit;
        const qreal right = 11.5 * unit;
        const qreal top = 1.8 * unit;
        const qreal bottom = 7.5 * unit;
        if (locked) {
            shackle.moveTo(left, bottom);
            shackle.lineTo(left, 5 * unit);
            shackle.arcTo(QRectF(left, top, right - left, 6.4 * unit), 180, -180);
            shackle.lineTo(right, bottom);
        } else {
            shackle.moveTo(right, bottom);
            shackle.lineTo(right, 5 * unit);
            shackle.arcTo(QRectF(right, top, right - left, 6.4 * unit), 180, -180);
        }
        painter.drawPath(shackle);
        painter.setPen(Qt::NoPen);
        painter.setBrush(colour);
        painter.drawRoundedRect(QRectF(2.5 * unit, 7 * unit, 11 * unit, 8 * unit), unit, unit);
        painter.setBrush(Qt::white);
        painter.drawEllipse(QPointF(8 * unit, 10.6 * unit), 1.2 * unit, 1.2 * unit);
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

} // namespace sandscope
