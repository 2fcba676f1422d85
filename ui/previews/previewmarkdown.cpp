#include "previewmarkdown.h"

#include "previews/previewtext.h"

#include <QHBoxLayout>
#include <QStackedWidget>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

namespace sandscope {

namespace {

// A text browser that loads no resources: a previewed file must not make the app read local
// files or follow links on its own.
class OfflineBrowser : public QTextBrowser {
public:
    using QTextBrowser::QTextBrowser;
    QVariant loadResource(int, const QUrl &) override { return {}; }
};

} // namespace

PreviewMarkdown::PreviewMarkdown(QWidget *parent)
    : PreviewPage(parent)
    , m_sourceToggle(new QToolButton(this))
    , m_stack(new QStackedWidget(this))
    , m_rendered(new OfflineBrowser(this))
    , m_source(new PreviewText(this))
{
    m_sourceToggle->setText(tr("Show source"));
    m_sourceToggle->setCheckable(true);
    m_sourceToggle->setObjectName(QStringLiteral("markdownSourceToggle"));
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 0, 4, 0);
    bar->addStretch(1);
    bar->addWidget(m_sourceToggle);
    contentLayout()->addLayout(bar);

    m_rendered->setOpenLinks(false);
    m_rendered->setOpenExternalLinks(false);
    m_stack->addWidget(m_rendered);
    m_stack->addWidget(m_source);
    contentLayout()->addWidget(m_stack, 1);

    connect(m_sourceToggle, &QToolButton::toggled, this, &PreviewMarkdown::setShowSource);
}

void PreviewMarkdown::setMarkdown(const QString &fileName, const QString &markdown)
{
    clearMessage();
    m_source->setText(fileName, QStringLiteral("text/markdown"), markdown);
    const bool renderable = markdown.size() <= maxRenderedChars;
    if (renderable) {
        m_rendered->document()->setMarkdown(markdown);
    } else {
        m_rendered->clear();
        setMessage(
            tr("This Markdown file is too large to render; showing its source."), Severity::Note);
    }
    m_sourceToggle->setEnabled(renderable);
    setShowSource(!renderable);
}

void PreviewMarkdown::setShowSource(bool source)
{
    m_stack->setCurrentWidget(source ? static_cast<QWidget *>(m_source) : m_rendered);
    const QSignalBlocker blocker(m_sourceToggle);
    m_sourceToggle->setChecked(source);
    m_sourceToggle->setText(source ? tr("Show rendered") : tr("Show source"));
}

bool PreviewMarkdown::showsSource() const
{
    return m_stack->currentWidget() == m_source;
}

} // namespace sandscope
