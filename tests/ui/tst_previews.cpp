// PreviewPane offscreen: every supported type lands on its page with the right content, bad
// input (truncated PNG, garbage PDF, invalid UTF-8, absurdly nested JSON, huge images and texts)
// shows a clear message instead of crashing or stalling, and partial files offer "Load all".

#include "previews/csvtablemodel.h"
#include "previews/jsontreemodel.h"
#include "previews/previewcsv.h"
#include "previews/previewhex.h"
#include "previews/previewimage.h"
#include "previews/previewjson.h"
#include "previews/previewmarkdown.h"
#include "previews/previewpane.h"
#include "previews/previewpdf.h"
#include "previews/previewtext.h"

#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QElapsedTimer>
#include <QFile>
#include <QImageReader>
#include <QImageWriter>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextLayout>
#include <QToolButton>
#include <QtTest>

using namespace sandscope;

namespace {

QByteArray sampleFile(const QString &name)
{
    QFile file(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing test data file %s", qPrintable(name));
    return file.readAll();
}

QByteArray encodedImage(const char *format, QSize size = QSize(40, 30))
{
    QImage image(size, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.fillRect(QRect(QPoint(0, 0), size / 2), Qt::darkCyan);
    painter.end();
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, format);
    if (!writer.write(image))
        qFatal("cannot encode %s: %s", format, qPrintable(writer.errorString()));
    return buffer.data();
}

quint32 crc32(const QByteArray &data)
{
    quint32 crc = 0xffffffffu;
    for (const char byte : data) {
        crc ^= quint8(byte);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

QByteArray bigEndian(quint32 value)
{
    QByteArray out(4, '\0');
    for (int i = 0; i < 4; ++i)
        out[i] = char((value >> (24 - 8 * i)) & 0xff);
    return out;
}

// A PNG whose header claims width × height pixels (with a valid CRC), followed by no data.
QByteArray pngHeaderClaiming(quint32 width, quint32 height)
{
    const QByteArray chunk = QByteArray("IHDR") + bigEndian(width) + bigEndian(height)
        + QByteArray("\x08\x06\x00\x00\x00", 5);
    return QByteArray("\x89PNG\r\n\x1a\n", 8) + bigEndian(13) + chunk + bigEndian(crc32(chunk))
        + bigEndian(0) + QByteArray("IDAT") + bigEndian(crc32("IDAT")) + bigEndian(0)
        + QByteArray("IEND") + bigEndian(crc32("IEND"));
}

QString numberedLines(int count, const QString &pattern)
{
    QString text;
    text.reserve(count * (pattern.size() + 8));
    for (int i = 1; i <= count; ++i)
        text += pattern.arg(i) + QLatin1Char('\n');
    return text;
}

#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
bool blockHasFormats(const QTextBlock &block)
{
    return block.isValid() && !block.layout()->formats().isEmpty();
}
#endif

} // namespace

class TestPreviews : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(QDir().mkpath(QDir::tempPath())); }

    void codeShowsInTextPageWithLineNumbers()
    {
        PreviewPane pane;
        pane.resize(700, 500);
        pane.show();
        const QByteArray code = sampleFile(QStringLiteral("previews/sample.cpp"));
        pane.showContent(QStringLiteral("sample.cpp"), code, code.size(), false);
        QCOMPARE(pane.currentPage(), pane.textPage());
        QCOMPARE(pane.kind(), PreviewKind::Text);
        QCOMPARE(pane.textPage()->editor()->toPlainText(), QString::fromUtf8(code));
        QVERIFY(pane.errorText().isEmpty());
        QVERIFY(!pane.offersLoadAll());
        QVERIFY2(pane.statusText().contains(QLatin1String("text/x-c++src")),
            qPrintable(pane.statusText()));
        // The gutter takes room left of the text.
        QVERIFY(pane.textPage()->editor()->viewport()->geometry().left() > 10);
    }

    void codeIsHighlightedWithKSyntaxHighlighting()
    {
#ifndef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
        QSKIP("built without KSyntaxHighlighting (Qt 6 without KF6): plain text only");
#else
        PreviewPane pane;
        pane.resize(700, 500);
        pane.show();
        const QByteArray code = sampleFile(QStringLiteral("previews/sample.cpp"));
        pane.showContent(QStringLiteral("sample.cpp"), code, code.size(), false);
        QCOMPARE(pane.textPage()->highlightingName(), QStringLiteral("C++"));
        const QTextBlock includeLine = pane.textPage()->editor()->document()->findBlockByNumber(1);
        QTRY_VERIFY(blockHasFormats(includeLine));
#endif
    }

    void highlightingThemeFollowsPalette()
    {
#ifndef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
        QSKIP("built without KSyntaxHighlighting (Qt 6 without KF6): no themes");
#else
        PreviewPane pane;
        pane.resize(700, 500);
        pane.show();
        QPalette light;
        light.setColor(QPalette::Base, Qt::white);
        light.setColor(QPalette::Text, Qt::black);
        pane.setPalette(light);
        const QByteArray code = sampleFile(QStringLiteral("previews/sample.cpp"));
        pane.showContent(QStringLiteral("sample.cpp"), code, code.size(), false);
        PreviewText *text = pane.textPage();
        QVERIFY(!text->usesDarkTheme());
        const QTextBlock comment = text->editor()->document()->firstBlock();
        QTRY_VERIFY(blockHasFormats(comment));
        const QColor lightColour
            = comment.layout()->formats().constFirst().format.foreground().color();

        QPalette dark;
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        dark.setColor(QPalette::Window, QColor(40, 40, 40));
        pane.setPalette(dark);
        QTRY_VERIFY(text->usesDarkTheme());
        QTRY_VERIFY(blockHasFormats(comment)
            && comment.layout()->formats().constFirst().format.foreground().color() != lightColour);
#endif
    }

    void firstScreenOfLongTextIsFastAndOffersLoadAll()
    {
        PreviewPane pane;
        pane.resize(800, 600);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        // The first 5000 lines of a 100 MB file, as GET /files/read returns them.
        const QString firstPart = numberedLines(
            5000, QStringLiteral("int value%1 = compute(\"some string\", 42); // comment"));
        QSignalSpy loadAll(&pane, &PreviewPane::loadAllRequested);

        // Best of three, so that a busy machine does not decide the outcome.
        qint64 best = std::numeric_limits<qint64>::max();
        for (int attempt = 0; attempt < 3; ++attempt) {
            pane.clear();
            QCoreApplication::processEvents();
            QElapsedTimer timer;
            timer.start();
            pane.showText(QStringLiteral("huge.cpp"), firstPart, 1300000, true);
            const QPixmap firstScreen = pane.grab(); // paints what the user sees first
            best = std::min(best, timer.elapsed());
            QVERIFY(!firstScreen.isNull());
            QTRY_VERIFY(!pane.textPage()->isLoading());
        }
        // The 200 ms target is a figure to report (sanitizer builds are far slower), not an
        // assertion; what must hold is that the first part shows at once and "Load all" is offered.
        qInfo("first screen of 5000 lines: %lld ms", best);

        QCOMPARE(pane.currentPage(), pane.textPage());
        QCOMPARE(pane.textPage()->lineCount(), 5001); // the final line break opens an empty line
#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
        // Highlighting kept up with the chunks appended after the first screen.
        const QTextDocument *document = pane.textPage()->editor()->document();
        QVERIFY(blockHasFormats(document->findBlockByNumber(10)));
        QVERIFY(blockHasFormats(document->findBlockByNumber(4999)));
#endif
        QVERIFY(pane.offersLoadAll());
        QVERIFY2(pane.statusText().contains(QLatin1String("of 1,300,000")),
            qPrintable(pane.statusText()));
        QTest::mouseClick(
            pane.findChild<QPushButton *>(QStringLiteral("previewLoadAll")), Qt::LeftButton);
        QCOMPARE(loadAll.count(), 1);

        // The whole text replaces the part; "Load all" goes away.
        pane.showText(QStringLiteral("huge.cpp"), firstPart, 5000, false);
        QVERIFY(!pane.offersLoadAll());
    }

    void fiftyMegabyteTextOpensAtOnceAndLoadsInSlices()
    {
        PreviewPane pane;
        pane.resize(800, 600);
        pane.show();
        const QByteArray line = "2024-05-01T12:00:00Z INFO worker-7 handled request in 12 ms\n";
        QByteArray bytes;
        bytes.reserve(50 * 1024 * 1024 + line.size());
        while (bytes.size() < 50 * 1024 * 1024)
            bytes += line;

        QElapsedTimer timer;
        timer.start();
        pane.showContent(QStringLiteral("server.log"), bytes, qint64(2) << 30, true);
        const qint64 firstShown = timer.elapsed();
        qInfo("50 MB text: first part shown after %lld ms", firstShown);
        // Shown at once: the first part is on the page while the rest is still to come.
        QCOMPARE(pane.currentPage(), pane.textPage());
        QVERIFY(pane.textPage()->isLoading());
        QVERIFY(pane.textPage()->lineCount() > 1);
        QVERIFY(pane.textPage()->lineCount() < bytes.count('\n'));
        QVERIFY(pane.offersLoadAll());
        QVERIFY2(
            pane.statusText().contains(QLatin1String("2.0 GiB")), qPrintable(pane.statusText()));

        // The rest arrives in slices; the event loop keeps turning in between.
        QSignalSpy finished(pane.textPage(), &PreviewText::loadingFinished);
        int turns = 0;
        QElapsedTimer longestTurn;
        qint64 longest = 0;
        while (pane.textPage()->isLoading() && timer.elapsed() < 120000) {
            longestTurn.start();
            QCoreApplication::processEvents();
            longest = std::max(longest, longestTurn.elapsed());
            ++turns;
        }
        QCOMPARE(finished.count(), 1);
        QVERIFY(turns > 10);
        qInfo("slices: %d event-loop turns, longest %lld ms", turns, longest);
        // The longest slice is reported, not asserted (it depends on the build and the machine);
        // what must hold is that the text arrives in many slices, checked above.
        QCOMPARE(pane.textPage()->lineCount(), bytes.count('\n') + 1);
    }

    void markdownRendersAndTogglesToSource()
    {
        PreviewPane pane;
        const QByteArray markdown = sampleFile(QStringLiteral("previews/README.md"));
        pane.showContent(QStringLiteral("README.md"), markdown, markdown.size(), false);
        QCOMPARE(pane.currentPage(), pane.markdownPage());
        PreviewMarkdown *page = pane.markdownPage();
        QVERIFY(!page->showsSource());
        const QString rendered = page->renderedView()->toPlainText();
        QVERIFY2(rendered.contains(QLatin1String("Sandscope preview")), qPrintable(rendered));
        QVERIFY2(!rendered.contains(QLatin1String("# Sandscope")), "heading markup is rendered");
        QVERIFY(!rendered.contains(QLatin1String("**bold**")));

        page->findChild<QToolButton *>(QStringLiteral("markdownSourceToggle"))->click();
        QVERIFY(page->showsSource());
        QVERIFY(page->sourceView()->editor()->toPlainText().startsWith(
            QLatin1String("# Sandscope preview")));
    }

    void jsonShowsTreeAndPrettyText()
    {
        PreviewPane pane;
        const QByteArray json = sampleFile(QStringLiteral("previews/config.json"));
        pane.showContent(QStringLiteral("config.json"), json, json.size(), false);
        QCOMPARE(pane.currentPage(), pane.jsonPage());
        PreviewJson *page = pane.jsonPage();
        QAbstractItemModelTester tester(
            page->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(page->hasTree());
        QVERIFY(page->showsTree());
        QCOMPARE(page->model()->rowCount(), 4);
        const QString pretty = page->textView()->editor()->toPlainText();
        QVERIFY2(pretty.contains(QLatin1String("\n  \"features\": [")), qPrintable(pretty));
        // The tree and the text keep the file's order of members.
        qsizetype inFile = -1, inText = -1;
        for (int row = 0; row < page->model()->rowCount(); ++row) {
            const QString key = QLatin1Char('"')
                + page->model()->index(row, JsonTreeModel::KeyColumn).data().toString()
                + QLatin1Char('"');
            const qsizetype nextInFile = json.indexOf(key.toUtf8());
            const qsizetype nextInText = pretty.indexOf(key);
            QVERIFY2(nextInFile > inFile && nextInText > inText, qPrintable(key));
            inFile = nextInFile;
            inText = nextInText;
        }
        QVERIFY(pane.errorText().isEmpty());
    }

    void deeplyNestedJsonShowsErrorAndRawText()
    {
        PreviewPane pane;
        const QByteArray json = QByteArray(200000, '[') + QByteArray(200000, ']');
        pane.showContent(QStringLiteral("deep.json"), json, json.size(), false);
        QCOMPARE(pane.currentPage(), pane.jsonPage());
        QVERIFY2(pane.errorText().contains(QLatin1String("Not valid JSON")),
            qPrintable(pane.errorText()));
        QVERIFY(!pane.jsonPage()->hasTree());
        QVERIFY(
            pane.jsonPage()->textView()->editor()->toPlainText().startsWith(QLatin1String("[[[[")));
    }

    void partialJsonShowsTextAndOffersLoadAll()
    {
        PreviewPane pane;
        const QByteArray json = sampleFile(QStringLiteral("previews/config.json"));
        pane.showContent(QStringLiteral("config.json"), json.left(40), json.size(), true);
        QCOMPARE(pane.currentPage(), pane.jsonPage());
        QVERIFY(!pane.jsonPage()->hasTree());
        QVERIFY(pane.errorText().isEmpty());
        QVERIFY(pane.messageText().contains(QLatin1String("Load all")));
        QVERIFY(pane.offersLoadAll());
    }

    void csvShowsTableWithQuotedFields()
    {
        PreviewPane pane;
        const QByteArray csv = sampleFile(QStringLiteral("previews/people.csv"));
        pane.showContent(QStringLiteral("people.csv"), csv, csv.size(), false);
        QCOMPARE(pane.currentPage(), pane.csvPage());
        QCOMPARE(pane.kind(), PreviewKind::Csv);
        CsvTableModel *model = pane.csvPage()->model();
        QCOMPARE(model->rowCount(), 4);
        QCOMPARE(model->columnCount(), 4);
        QCOMPARE(model->headerData(2, Qt::Horizontal, Qt::DisplayRole).toString(),
            QStringLiteral("comment"));
        QCOMPARE(model->index(0, 2).data().toString(), QStringLiteral("likes commas, really"));
        QCOMPARE(model->index(1, 2).data().toString(), QStringLiteral("says \"hi\""));
        QCOMPARE(model->index(2, 2).data().toString(), QStringLiteral("two\r\nlines"));
        QCOMPARE(model->index(3, 2).data().toString(), QString());
        QCOMPARE(pane.csvPage()->summary(), QStringLiteral("4 rows × 4 columns"));
    }

    void tsvShowsTable()
    {
        PreviewPane pane;
        const QByteArray tsv = sampleFile(QStringLiteral("previews/cities.tsv"));
        pane.showText(QStringLiteral("cities.tsv"), QString::fromUtf8(tsv), 4, false);
        QCOMPARE(pane.currentPage(), pane.csvPage());
        QCOMPARE(pane.kind(), PreviewKind::Tsv);
        QCOMPARE(pane.csvPage()->model()->index(1, 0).data().toString(),
            QStringLiteral("Washington, D.C."));
        QCOMPARE(pane.csvPage()->model()->columnCount(), 3);
    }

    void partialCsvDropsTheCutRecord()
    {
        PreviewPane pane;
        const QByteArray csv = "a,b\n1,2\n3,\"unfinished";
        pane.showContent(QStringLiteral("cut.csv"), csv, 1000, true);
        QCOMPARE(pane.csvPage()->model()->rowCount(), 1);
        QVERIFY(pane.offersLoadAll());
    }

    void unterminatedQuoteIsReported()
    {
        PreviewPane pane;
        pane.showText(QStringLiteral("bad.csv"), QStringLiteral("a,b\n1,\"open\n2,3\n"), 3, false);
        QCOMPARE(pane.currentPage(), pane.csvPage());
        QVERIFY2(pane.messageText().contains(QLatin1String("never closed")),
            qPrintable(pane.messageText()));
    }

    void rasterImagesDecode_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QSize>("size");
        // Qt has no GIF writer: the classic 1×1 GIF.
        const QByteArray gif
            = QByteArray::fromBase64("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7");
        QTest::newRow("png") << QStringLiteral("a.png") << encodedImage("png") << QSize(40, 30);
        QTest::newRow("jpeg") << QStringLiteral("a.jpg") << encodedImage("jpeg") << QSize(40, 30);
        QTest::newRow("gif") << QStringLiteral("a.gif") << gif << QSize(1, 1);
        QTest::newRow("png bytes named .txt")
            << QStringLiteral("notes.txt") << encodedImage("png") << QSize(40, 30);
    }

    void rasterImagesDecode()
    {
        QFETCH(QString, fileName);
        QFETCH(QByteArray, bytes);
        QFETCH(QSize, size);
        PreviewPane pane;
        pane.resize(600, 400);
        pane.show();
        pane.showContent(fileName, bytes, bytes.size(), false);
        QCOMPARE(pane.currentPage(), pane.imagePage());
        QVERIFY2(pane.errorText().isEmpty(), qPrintable(pane.errorText()));
        QVERIFY(pane.imagePage()->hasImage());
        QCOMPARE(pane.imagePage()->imageSize(), size);
        const QString dimensions = QStringLiteral("%1 × %2").arg(size.width()).arg(size.height());
        QVERIFY2(pane.imagePage()->summary().contains(dimensions),
            qPrintable(pane.imagePage()->summary()));
    }

    void imageFitsAndZooms()
    {
        PreviewPane pane;
        pane.resize(300, 250);
        pane.show();
        const QByteArray png = encodedImage("png", QSize(1200, 900));
        pane.showContent(QStringLiteral("big.png"), png, png.size(), false);
        PreviewImage *page = pane.imagePage();
        QVERIFY(page->fitsToView());
        QTRY_VERIFY(page->shownSize().isValid());
        QVERIFY2(page->shownSize().width() < 300, "fit shrinks to the view");

        page->setZoom(1.0);
        QVERIFY(!page->fitsToView());
        QCOMPARE(page->shownSize(), QSize(1200, 900));
        page->zoomIn();
        QCOMPARE(page->zoom(), 1.25);
        page->setFitToView(true);
        QVERIFY(page->shownSize().width() < 300);
    }

    // The first picture of a pane arrives before the page's viewport has its size: it is
    // fitted again once it has (it used to stay at a fraction of the room).
    void theFirstImageFitsTheRoomItGets()
    {
        PreviewPane pane;
        pane.resize(700, 600);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        const QByteArray png = encodedImage("png", QSize(2400, 1800));
        pane.showContent(QStringLiteral("first.png"), png, png.size(), false);
        PreviewImage *page = pane.imagePage();
        QTRY_VERIFY(page->shownSize().isValid());
        // Fit: limited by the width or the height, it uses at least half of either.
        QTRY_VERIFY2(page->shownSize().width() > 700 / 2 || page->shownSize().height() > 600 / 2,
            qPrintable(QStringLiteral("%1 x %2")
                           .arg(page->shownSize().width())
                           .arg(page->shownSize().height())));
        QVERIFY(page->shownSize().width() <= 700);
    }

    void webpDecodesOrNamesTheMissingPlugin()
    {
        // A valid 1×1 lossless WebP.
        const QByteArray webp
            = QByteArray::fromBase64("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==");
        PreviewPane pane;
        pane.showContent(QStringLiteral("pixel.webp"), webp, webp.size(), false);
        QCOMPARE(pane.currentPage(), pane.imagePage());
        if (QImageReader::supportedImageFormats().contains("webp")) {
            QVERIFY2(pane.errorText().isEmpty(), qPrintable(pane.errorText()));
            QCOMPARE(pane.imagePage()->imageSize(), QSize(1, 1));
        } else {
            QVERIFY2(pane.errorText().contains(QLatin1String("cannot decode WEBP")),
                qPrintable(pane.errorText()));
        }
    }

    void svgRendersAtItsSize()
    {
        PreviewPane pane;
        pane.resize(400, 300);
        pane.show();
        const QByteArray svg = sampleFile(QStringLiteral("previews/icon.svg"));
        pane.showContent(QStringLiteral("icon.svg"), svg, svg.size(), false);
        QCOMPARE(pane.currentPage(), pane.imagePage());
        QCOMPARE(pane.kind(), PreviewKind::Svg);
        QVERIFY2(pane.errorText().isEmpty(), qPrintable(pane.errorText()));
        QCOMPARE(pane.imagePage()->imageSize(), QSize(64, 48));
        pane.imagePage()->setZoom(4.0);
        QCOMPARE(pane.imagePage()->shownSize(), QSize(256, 192));
    }

    void brokenSvgShowsError()
    {
        PreviewPane pane;
        pane.showContent(QStringLiteral("broken.svg"),
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect", 46, false);
        QCOMPARE(pane.currentPage(), pane.imagePage());
        QVERIFY2(!pane.errorText().isEmpty(), "an unparsable SVG says so");
    }

    void truncatedPngShowsError()
    {
        const QByteArray png = encodedImage("png", QSize(200, 200));
        const QByteArray truncated = png.left(png.size() / 2);
        PreviewPane pane;
        pane.showContent(QStringLiteral("cut.png"), truncated, png.size(), false);
        QCOMPARE(pane.currentPage(), pane.imagePage());
        QVERIFY2(pane.errorText().contains(QLatin1String("PNG")), qPrintable(pane.errorText()));
        QVERIFY(!pane.imagePage()->hasImage());
    }

    void textNamedPngShowsError()
    {
        PreviewPane pane;
        pane.showContent(QStringLiteral("fake.png"), "just text\n", 10, false);
        QCOMPARE(pane.currentPage(), pane.imagePage());
        QVERIFY2(pane.errorText().contains(QLatin1String("PNG")), qPrintable(pane.errorText()));
    }

    void hugeImageDimensionsAreRefusedBeforeDecoding()
    {
        const QByteArray png = pngHeaderClaiming(60000, 60000);
        PreviewPane pane;
        pane.showContent(QStringLiteral("bomb.png"), png, png.size(), false);
        QCOMPARE(pane.currentPage(), pane.imagePage());
        QVERIFY2(pane.errorText().contains(QLatin1String("too large")),
            qPrintable(pane.errorText())); // 3.6 gigapixels must not be decoded
        QVERIFY(!pane.imagePage()->hasImage());
    }

    void pdfShowsPagesAndNavigates()
    {
        PreviewPane pane;
        pane.resize(600, 500);
        pane.show();
        const QByteArray pdf = sampleFile(QStringLiteral("previews/two-pages.pdf"));
        pane.showContent(QStringLiteral("two-pages.pdf"), pdf, pdf.size(), false);
        QCOMPARE(pane.currentPage(), pane.pdfPage());
        PreviewPdf *page = pane.pdfPage();
        QTRY_COMPARE(page->pageCount(), 2);
        QVERIFY2(pane.errorText().isEmpty(), qPrintable(pane.errorText()));
        QCOMPARE(page->pageText(), QStringLiteral("Page 1 of 2"));
        page->goToPage(1);
        QTRY_COMPARE(page->currentPage(), 1);
        QCOMPARE(page->pageText(), QStringLiteral("Page 2 of 2"));
        page->goToPage(5); // out of range: ignored
        QCOMPARE(page->currentPage(), 1);
    }

    void garbagePdfShowsError()
    {
        PreviewPane pane;
        QByteArray garbage = "%PDF-1.7\n";
        for (int i = 0; i < 2000; ++i)
            garbage += char((i * 7919) % 251);
        pane.showContent(QStringLiteral("broken.pdf"), garbage, garbage.size(), false);
        QCOMPARE(pane.currentPage(), pane.pdfPage());
        QTRY_VERIFY2(pane.errorText().contains(QLatin1String("PDF")), qPrintable(pane.errorText()));
        QCOMPARE(pane.pdfPage()->pageCount(), 0);
    }

    void invalidUtf8ShowsWarningAndReplacementCharacters()
    {
        PreviewPane pane;
        const QByteArray latin1 = "caf\xe9 au lait\nsecond line\n";
        pane.showContent(QStringLiteral("menu.txt"), latin1, latin1.size(), false);
        QCOMPARE(pane.currentPage(), pane.textPage());
        QVERIFY2(pane.messageText().contains(QLatin1String("Not valid UTF-8")),
            qPrintable(pane.messageText()));
        QVERIFY(pane.messageText().contains(QLatin1String("offset 3")));
        QVERIFY(pane.textPage()->editor()->toPlainText().contains(QChar(0xfffd)));
        QVERIFY(pane.textPage()->editor()->toPlainText().contains(QLatin1String("second line")));
    }

    void prefixCutInsideACharacterIsNotInvalid()
    {
        PreviewPane pane;
        const QByteArray text = "price: 5 \xe2\x82\xac\nnext \xe2\x82";
        pane.showContent(QStringLiteral("prices.txt"), text, 100, true);
        QVERIFY2(
            !pane.messageText().contains(QLatin1String("UTF-8")), qPrintable(pane.messageText()));
        QVERIFY(!pane.textPage()->editor()->toPlainText().contains(QChar(0xfffd)));
    }

    void longLinesAreShortenedForDisplay()
    {
        PreviewPane pane;
        const QByteArray minified = QByteArray(3 * 1024 * 1024, 'x') + "\nshort\n";
        pane.showContent(QStringLiteral("bundle.min.js"), minified, minified.size(), false);
        QCOMPARE(pane.currentPage(), pane.textPage());
        QVERIFY(pane.messageText().contains(QLatin1String("shortened")));
        QVERIFY(pane.textPage()->editor()->document()->firstBlock().length()
            < PreviewText::maxLineLength + 100);
    }

    void binaryShowsHexDumpOfPrefixWithSize()
    {
        QByteArray prefix(1024 * 1024, '\0');
        for (int i = 0; i < prefix.size(); ++i)
            prefix[i] = char(i % 256);
        PreviewPane pane;
        pane.showContent(QStringLiteral("disk.img"), prefix, qint64(2) << 30, true);
        QCOMPARE(pane.currentPage(), pane.hexPage());
        QCOMPARE(pane.kind(), PreviewKind::Binary);
        const QString summary = pane.hexPage()->summary();
        QVERIFY2(summary.contains(QLatin1String("2.0 GiB")), qPrintable(summary));
        QVERIFY2(summary.contains(QLatin1String("first 256.0 KiB")), qPrintable(summary));
        QCOMPARE(pane.hexPage()->dumpView()->blockCount(), PreviewHex::maxDumpedBytes / 16 + 1);
        QVERIFY2(!pane.offersLoadAll(), "loading a 2 GB file whole would not help a hex dump");
    }

    void runStreamIsReportedAndOffersRunView()
    {
        PreviewPane pane;
        const QByteArray stream = sampleFile(QStringLiteral("stream-basic.jsonl"));
        QSignalSpy openRun(&pane, &PreviewPane::openRunRequested);
        pane.showContent(QStringLiteral("session.jsonl"), stream, stream.size(), false);
        QCOMPARE(pane.kind(), PreviewKind::RunStream);
        QCOMPARE(pane.currentPage(), pane.textPage());
        QVERIFY(pane.offersOpenRun());
        QTest::mouseClick(
            pane.findChild<QPushButton *>(QStringLiteral("previewOpenRun")), Qt::LeftButton);
        QCOMPARE(openRun.count(), 1);

        pane.showText(QStringLiteral("notes.txt"), QStringLiteral("hello\n"), 1, false);
        QVERIFY(!pane.offersOpenRun());
    }

    void forbiddenReadShowsWhoseFilesTheyAre()
    {
        ApiError error;
        error.kind = ApiError::Kind::Forbidden;
        error.httpStatus = 403;
        error.detail = QStringLiteral("Access denied: /home/bob belongs to another user");
        PreviewPane pane;
        pane.showError(describePreviewFailure(QStringLiteral("/home/bob/plan.md"), error));
        QCOMPARE(pane.currentPage(), pane.messagePage());
        QVERIFY2(pane.errorText().contains(QStringLiteral("\u201cbob\u201d")),
            qPrintable(pane.errorText()));
        QVERIFY(!pane.offersLoadAll());

        // The next file replaces the error.
        pane.showText(QStringLiteral("a.txt"), QStringLiteral("ok\n"), 1, false);
        QCOMPARE(pane.currentPage(), pane.textPage());
        QVERIFY(pane.errorText().isEmpty());
    }

    void screenshotsOfTextAndCsv()
    {
        PreviewPane pane;
        pane.resize(760, 420);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        const QByteArray code = sampleFile(QStringLiteral("previews/sample.cpp"));
        pane.showText(QStringLiteral("sample.cpp"), QString::fromUtf8(code), 300, true);
        QTest::qWait(50);
        const QPixmap text = pane.grab();
        QVERIFY(text.save(QDir::temp().filePath(QStringLiteral("sandscope-preview-text.png"))));

        const QByteArray csv = sampleFile(QStringLiteral("previews/people.csv"));
        pane.showContent(QStringLiteral("people.csv"), csv, csv.size(), false);
        QTest::qWait(50);
        const QPixmap table = pane.grab();
        QVERIFY(table.save(QDir::temp().filePath(QStringLiteral("sandscope-preview-csv.png"))));
        QVERIFY(text.toImage() != table.toImage());
    }
};

QTEST_MAIN(TestPreviews)
#include "tst_previews.moc"
