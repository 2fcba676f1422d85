#include "breadcrumbbar.h"

#include "files/remotepaths.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QIcon>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QStyle>
#include <QToolButton>

namespace sandscope {

namespace {

QString cleanRemotePath(QString path)
{
    while (path.size() > 1 && path.endsWith(QLatin1Char('/')))
        path.chop(1);
    return path;
}

} // namespace

BreadcrumbBar::BreadcrumbBar(QWidget *parent)
    : QWidget(parent)
    , m_crumbs(new QWidget(this))
    , m_crumbLayout(new QHBoxLayout(m_crumbs))
    , m_ellipsis(new QToolButton(m_crumbs))
    , m_edit(new QLineEdit(this))
    , m_editButton(new QToolButton(this))
{
    setObjectName(QStringLiteral("breadcrumbBar"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_crumbLayout->setContentsMargins(0, 0, 0, 0);
    m_crumbLayout->setSpacing(0);
    m_crumbs->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_crumbs, 1);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_editButton);

    m_ellipsis->setText(QStringLiteral("\u2026"));
    m_ellipsis->setAutoRaise(true);
    m_ellipsis->setToolTip(tr("Edit the path"));
    connect(m_ellipsis, &QToolButton::clicked, this, &BreadcrumbBar::startEditing);

    m_edit->setObjectName(QStringLiteral("breadcrumbEdit"));
    m_edit->setPlaceholderText(tr("Absolute path on the server, e.g. /home/alice/chat-1"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    m_edit->hide();
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        const QString typed = cleanRemotePath(m_edit->text().trimmed());
        stopEditing();
        if (typed.startsWith(QLatin1Char('/')))
            Q_EMIT pathActivated(typed);
    });

    m_editButton->setObjectName(QStringLiteral("breadcrumbEditButton"));
    m_editButton->setAutoRaise(true);
    m_editButton->setIcon(QIcon::fromTheme(
        QStringLiteral("document-edit"), style()->standardIcon(QStyle::SP_FileDialogDetailedView)));
    m_editButton->setToolTip(tr("Type a path (Ctrl+L)"));
    m_editButton->setShortcut(QKeySequence(tr("Ctrl+L")));
    connect(m_editButton, &QToolButton::clicked, this, [this] {
        if (isEditing())
            stopEditing();
        else
            startEditing();
    });
    rebuild();
}

void BreadcrumbBar::setPath(const QString &absolutePath)
{
    const QString cleaned = cleanRemotePath(absolutePath);
    if (cleaned == m_path)
        return;
    m_path = cleaned;
    rebuild();
}

void BreadcrumbBar::setHomePath(const QString &homePath)
{
    m_homePath = cleanRemotePath(homePath);
    rebuild();
}

QStringList BreadcrumbBar::segmentPaths() const
{
    QStringList paths;
    for (const QToolButton *button : m_segments)
        paths << button->property("remotePath").toString();
    return paths;
}

int BreadcrumbBar::hiddenSegmentCount() const
{
    int hidden = 0;
    for (const QToolButton *button : m_segments)
        hidden += button->isHidden() ? 1 : 0;
    return hidden;
}

bool BreadcrumbBar::isEditing() const
{
    return !m_edit->isHidden();
}

void BreadcrumbBar::startEditing()
{
    m_edit->setText(m_path);
    m_crumbs->hide();
    m_edit->show();
    m_edit->setFocus();
    m_edit->selectAll();
}

void BreadcrumbBar::stopEditing()
{
    m_edit->hide();
    m_crumbs->show();
}

bool BreadcrumbBar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_edit) {
        if (event->type() == QEvent::KeyPress
            && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape) {
            stopEditing();
            return true;
        }
        if (event->type() == QEvent::FocusOut && isEditing())
            stopEditing();
    }
    return QWidget::eventFilter(watched, event);
}

void BreadcrumbBar::rebuild()
{
    qDeleteAll(m_segments);
    qDeleteAll(m_separators);
    m_segments.clear();
    m_separators.clear();
    while (m_crumbLayout->count() > 0)
        delete m_crumbLayout->takeAt(0);
    m_crumbLayout->addWidget(m_ellipsis);

    if (!m_path.isEmpty()) {
        QStringList paths {QStringLiteral("/")};
        QString current;
        const QStringList names = m_path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
        for (const QString &name : names) {
            current += QLatin1Char('/') + name;
            paths << current;
        }
        for (int i = 0; i < paths.size(); ++i) {
            const QString &path = paths.at(i);
            if (i > 0) {
                auto *separator = new QLabel(QStringLiteral("\u203a"), m_crumbs);
                separator->setEnabled(false);
                separator->setContentsMargins(1, 0, 1, 0);
                m_separators << separator;
                m_crumbLayout->addWidget(separator);
            }
            auto *button = new QToolButton(m_crumbs);
            button->setAutoRaise(true);
            button->setProperty("remotePath", path);
            button->setToolTip(path);
            button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
            if (i == 0) {
                button->setText(QStringLiteral("/"));
            } else {
                button->setText(names.at(i - 1));
            }
            // Files shows the acting user's home as its one root: nothing above it is a link.
            if (remotepaths::isAbove(path, m_homePath)) {
                button->setEnabled(false);
                button->setToolTip(
                    tr("%1 is above the home of the user you act as; Files shows that home")
                        .arg(path));
            }
            if (path == m_homePath) {
                button->setIcon(QIcon::fromTheme(
                    QStringLiteral("user-home"), style()->standardIcon(QStyle::SP_DirHomeIcon)));
            }
            if (i == paths.size() - 1) {
                QFont bold = button->font();
                bold.setBold(true);
                button->setFont(bold);
            }
            connect(
                button, &QToolButton::clicked, this, [this, path] { Q_EMIT pathActivated(path); });
            m_segments << button;
            m_crumbLayout->addWidget(button);
        }
    }
    m_crumbLayout->addStretch(1);
    fitSegments();
}

void BreadcrumbBar::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitSegments();
}

void BreadcrumbBar::fitSegments()
{
    // Show everything, then collapse from the front until the rest fits.
    for (QToolButton *button : m_segments)
        button->show();
    for (QLabel *separator : m_separators)
        separator->show();
    m_ellipsis->hide();
    const int available = m_crumbs->width();
    if (available <= 0)
        return;
    const auto needed = [this] {
        int width = 0;
        for (int i = 0; i < m_crumbLayout->count(); ++i) {
            QWidget *widget = m_crumbLayout->itemAt(i)->widget();
            if (widget && !widget->isHidden())
                width += widget->sizeHint().width() + m_crumbLayout->spacing();
        }
        return width;
    };
    int first = 0;
    while (needed() > available && first < m_segments.size() - 1) {
        if (first == 0)
            m_ellipsis->show();
        m_segments.at(first)->hide();
        m_separators.at(first)->hide(); // the separator after it
        ++first;
    }
}

} // namespace sandscope
