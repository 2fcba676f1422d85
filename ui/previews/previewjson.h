#pragma once
// JSON as a collapsible tree and as pretty-printed text. Invalid or partial JSON, and JSON too
// large to parse on the UI thread, shows as plain text with a message saying why.

#include "previews/previewpage.h"

class QTabWidget;
class QTreeView;

namespace sandscope {

class JsonTreeModel;
class PreviewText;

class PreviewJson : public PreviewPage {
    Q_OBJECT
public:
    static constexpr int maxParsedBytes = 16 * 1024 * 1024;
    static constexpr int maxPrettyPrintedBytes = 8 * 1024 * 1024;

    explicit PreviewJson(QWidget *parent = nullptr);

    // isPartial: `json` is only the start of the file, so no tree can be built from it.
    void setJson(const QString &fileName, const QByteArray &json, bool isPartial);

    bool hasTree() const;
    bool showsTree() const;
    QTreeView *treeView() const { return m_tree; }
    JsonTreeModel *model() const { return m_model; }
    PreviewText *textView() const { return m_text; }

private:
    QTabWidget *m_tabs;
    QTreeView *m_tree;
    JsonTreeModel *m_model;
    PreviewText *m_text;
};

} // namespace sandscope
