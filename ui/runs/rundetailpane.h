#pragma once
// What one node of the run tree holds, in full: the Bash command and its output, an Edit or
// MultiEdit as a diff, Write content highlighted (KSyntaxHighlighting when available),
// Read/Grep/Glob arguments and output, a TodoWrite checklist, an Agent's prompt and report,
// texts and errors; and on a second tab the node's raw JSON line, pretty and copyable (the
// tool_result line on a third for tool calls). A Read/Write/Edit/MultiEdit/NotebookEdit call
// offers to open its file (openFileRequested with the path as the call named it).

#include "runtree/runmodel.h"
#include "runtree/runnodedetails.h"
#include "streamjson/runevents.h"

#include <QPersistentModelIndex>
#include <QWidget>

#include <functional>
#include <memory>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QScrollArea;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QToolButton;

namespace sandscope {

class RunDetailPane : public QWidget {
    Q_OBJECT

public:
    enum class View { Empty, Text, Code, Diff, Checklist };
    Q_ENUM(View)

    explicit RunDetailPane(QWidget *parent = nullptr);
    ~RunDetailPane() override;

    // A RunModel index (any column); the pane follows the node while it changes (refresh()).
    void showIndex(const QModelIndex &sourceIndex);
    QModelIndex shownIndex() const { return m_index; }
    void clear();

    View view() const { return m_view; }
    QString titleText() const;
    QString factsText() const { return m_factsPlain; } // "Key: value" lines
    QString bodyText() const;
    bool isResultVisible() const;
    QString resultText() const;
    QString rawJsonText() const;
    QString resultJsonText() const;
    bool isCodeHighlighted() const { return m_codeHighlighted; }
    QTabWidget *tabs() const { return m_tabs; }
    QListWidget *checklist() const { return m_checklist; }
    QPlainTextEdit *diffView() const { return m_diff; }
    // The file of the shown Read/Write/Edit/NotebookEdit call, else empty: as the call named
    // it, or as the resolver (e.g. making it absolute) says.
    QString linkedFilePath() const;
    void setFileLinkResolver(std::function<QString(const QModelIndex &)> resolver);
    bool offersOpenFile() const;

Q_SIGNALS:
    // The Open File button, with linkedFilePath().
    void openFileRequested(const QString &filePath);

public slots:
    // Re-reads the shown node (its result or status may have arrived).
    void refresh();
    void copyRawJson();

private:
    struct Fact {
        QString key;
        QString value;
        bool code = false;
    };
    void setFacts(const QVector<Fact> &facts);
    void showText(const QString &text, bool monospace);
    void showCode(const QString &text, const QString &fileName);
    void showDiff(const QString &oldText, const QString &newText);
    void showMultiEditDiff(const QByteArray &inputJson);
    void showChecklist(const QVector<TodoItem> &todos);
    void showResult(const QString &text, bool isError);
    void setView(View view);
    void showToolCall(const QModelIndex &index, const RunNodeDetails &details);
    static QVector<Fact> readErrorFacts(const RunNodeDetails &details);

    QPersistentModelIndex m_index;
    View m_view = View::Empty;
    QString m_factsPlain;
    bool m_codeHighlighted = false;

    QLabel *m_icon;
    QLabel *m_title;
    QLabel *m_status;
    QTabWidget *m_tabs;
    QLabel *m_facts;
    QScrollArea *m_factsArea;
    int m_factsMaxHeight = 0;
    QSplitter *m_splitter;
    QStackedWidget *m_body;
    QLabel *m_emptyLabel;
    QPlainTextEdit *m_text;
    QPlainTextEdit *m_code;
    QPlainTextEdit *m_diff;
    QListWidget *m_checklist;
    QWidget *m_resultBox;
    QLabel *m_resultLabel;
    QPlainTextEdit *m_result;
    QPlainTextEdit *m_raw;
    QPlainTextEdit *m_resultRaw;
    QToolButton *m_copyButton;
    QToolButton *m_openFileButton;
    std::function<QString(const QModelIndex &)> m_fileLinkResolver;

    struct Highlighting;
    std::unique_ptr<Highlighting> m_highlighting;
};

} // namespace sandscope
