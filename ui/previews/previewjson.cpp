#include "previewjson.h"

#include "previews/hexdump.h"
#include "previews/jsontreemodel.h"
#include "previews/previewkind.h"
#include "previews/previewtext.h"
#include "util/format.h"
#include "util/jsonindent.h"

#include <QHeaderView>
#include <QTabWidget>
#include <QTreeView>
#include <QVBoxLayout>

namespace sandscope {

PreviewJson::PreviewJson(QWidget *parent)
    : PreviewPage(parent)
    , m_tabs(new QTabWidget(this))
    , m_tree(new QTreeView(this))
    , m_model(new JsonTreeModel(this))
    , m_text(new PreviewText(this))
{
    m_tree->setModel(m_model);
    m_tree->setUniformRowHeights(true); // keeps huge trees fast to scroll
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_tree->setObjectName(QStringLiteral("jsonTree"));
    m_tabs->addTab(m_tree, tr("Tree"));
    m_tabs->addTab(m_text, tr("Text"));
    m_tabs->setDocumentMode(true);
    contentLayout()->addWidget(m_tabs, 1);
}

void PreviewJson::setJson(const QString &fileName, const QByteArray &json, bool isPartial)
{
    clearMessage();
    const QString mime = QStringLiteral("application/json");
    const auto showRaw = [&](const QString &why, Severity severity) {
        m_model->clear();
        const QByteArray complete = json.left(completeUtf8Length(json));
        m_text->setText(fileName, mime, QString::fromUtf8(complete));
        m_tabs->setTabEnabled(0, false);
        m_tabs->setCurrentWidget(m_text);
        setMessage(why, severity);
    };

    if (isPartial) {
        showRaw(tr("Only the first part is loaded; the tree needs the whole file (Load all)."),
            Severity::Note);
        return;
    }
    if (json.size() > maxParsedBytes) {
        showRaw(tr("This JSON file (%1) is too large for the tree view; showing it as text.")
                    .arg(format::byteSize(json.size())),
            Severity::Note);
        return;
    }
    QString error;
    if (!m_model->loadJson(json, &error)) {
        showRaw(tr("Not valid JSON: %1. Showing the raw text.").arg(error), Severity::Error);
        return;
    }
    m_tabs->setTabEnabled(0, true);
    m_tabs->setCurrentWidget(m_tree);
    m_tree->expandToDepth(0);
    m_tree->resizeColumnToContents(JsonTreeModel::KeyColumn);
    if (json.size() <= maxPrettyPrintedBytes)
        m_text->setText(fileName, mime, indentedJson(json));
    else
        m_text->setText(fileName, mime, QString::fromUtf8(json));
    if (m_model->isTruncated())
        setMessage(
            tr("The tree shows the first %L1 values.").arg(m_model->nodeCount()), Severity::Note);
}

bool PreviewJson::hasTree() const
{
    return m_tabs->isTabEnabled(0);
}

bool PreviewJson::showsTree() const
{
    return m_tabs->currentWidget() == m_tree;
}

} // namespace sandscope
