#pragma once
// A layout that places its items left to right, in their size hints, and wraps them onto more
// lines when the width runs out: a row of facts (the run's summary bar) that must not make the
// window wider than a laptop screen.

#include <QLayout>
#include <QList>

namespace sandscope {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(
        QWidget *parent = nullptr, int horizontalSpacing = 18, int verticalSpacing = 2);
    ~FlowLayout() override;

    void addItem(QLayoutItem *item) override;
    int count() const override;
    QLayoutItem *itemAt(int index) const override;
    QLayoutItem *takeAt(int index) override;

    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override; // the widest item: everything else can wrap
    QSize sizeHint() const override; // everything on one line
    void setGeometry(const QRect &rect) override;

private:
    // Lays the items out in rect (only measures unless `place`); returns the height used.
    int arrange(const QRect &rect, bool place) const;

    QList<QLayoutItem *> m_items;
    int m_horizontalSpacing;
    int m_verticalSpacing;
};

} // namespace sandscope
