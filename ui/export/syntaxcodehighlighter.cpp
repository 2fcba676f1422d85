#include "syntaxcodehighlighter.h"

#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
#include <QMutex>

#include <KSyntaxHighlighting/AbstractHighlighter>
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Format>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/State>
#include <KSyntaxHighlighting/Theme>
#endif

#include <QColor>
#include <QStringView>

namespace sandscope {

#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
namespace {

KSyntaxHighlighting::Repository &repository()
{
    static KSyntaxHighlighting::Repository instance;
    return instance;
}

// Collects one line's formats as spans; the text between formats is escaped as it is.
class SpanWriter : public KSyntaxHighlighting::AbstractHighlighter {
public:
    QString line(QStringView text, KSyntaxHighlighting::State *state)
    {
        m_text = text;
        m_out.clear();
        m_done = 0;
        *state = highlightLine(text, *state);
        if (m_done < text.size())
            m_out += text.mid(m_done).toString().toHtmlEscaped();
        return m_out;
    }

protected:
    void applyFormat(int offset, int length, const KSyntaxHighlighting::Format &format) override
    {
        if (offset > m_done)
            m_out += m_text.mid(m_done, offset - m_done).toString().toHtmlEscaped();
        const QString piece = m_text.mid(offset, length).toString().toHtmlEscaped();
        QString style;
        if (!format.isDefaultTextStyle(theme())) {
            if (format.hasTextColor(theme()))
                style += QStringLiteral("color:%1;").arg(format.textColor(theme()).name());
            if (format.isBold(theme()))
                style += QStringLiteral("font-weight:bold;");
            if (format.isItalic(theme()))
                style += QStringLiteral("font-style:italic;");
        }
        m_out += style.isEmpty() ? piece
                                 : QStringLiteral("<span style=\"%1\">%2</span>").arg(style, piece);
        m_done = offset + length;
    }

private:
    QStringView m_text;
    QString m_out;
    qsizetype m_done = 0;
};

} // namespace
#endif

QString SyntaxCodeHighlighter::toHtml(const QString &code, const QString &fileNameOrLanguage) const
{
#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
    if (code.size() <= maxLength && !fileNameOrLanguage.isEmpty()) {
        // Exports render on worker threads; the repository is shared and not thread-safe.
        static QMutex repositoryLock;
        const QMutexLocker locker(&repositoryLock);
        KSyntaxHighlighting::Definition definition
            = repository().definitionForFileName(fileNameOrLanguage);
        if (!definition.isValid())
            definition = repository().definitionForName(fileNameOrLanguage);
        if (definition.isValid()) {
            SpanWriter writer;
            writer.setDefinition(definition);
            writer.setTheme(repository().defaultTheme(KSyntaxHighlighting::Repository::LightTheme));
            KSyntaxHighlighting::State state;
            QString html;
            html.reserve(code.size() * 2);
            const QStringView view(code);
            qsizetype start = 0;
            while (start <= view.size()) {
                qsizetype end = view.indexOf(QLatin1Char('\n'), start);
                const bool last = end < 0;
                if (last)
                    end = view.size();
                html += writer.line(view.mid(start, end - start), &state);
                if (last)
                    break;
                html += QLatin1Char('\n');
                start = end + 1;
            }
            return html;
        }
    }
#endif
    return CodeHighlighter::toHtml(code, fileNameOrLanguage);
}

} // namespace sandscope
