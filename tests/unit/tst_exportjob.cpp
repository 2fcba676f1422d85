// ExportJob, the export the window (on a worker thread) and `sandscope export` share:
// - for every capture and each format, with and without redaction, it renders byte for byte
//   what RunExporter renders from a snapshot redacted as it is taken (the way the command
//   line exported before the job existed);
// - a secret it is given is masked when redacting and kept when not;
// - rendering twice redacts once and gives the same bytes;
// - cancelled before writing, it writes nothing; a failed write says why.

#include "export/exportjob.h"
#include "export/runexporter.h"
#include "runs/loadedrun.h"
#include "runtree/runmodel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest/QTest>

#include <atomic>

using namespace sandscope;

namespace {

const QString secret = QStringLiteral("sk-ant-api03-exportjobsecret0123456789");

QString capture(const QString &name)
{
    return QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR)).filePath(name);
}

} // namespace

class TestExportJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rendersWhatTheExporterRenders_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("redact");
        for (const char *name : {"stream-basic.jsonl", "stream-subagent.jsonl",
                 "stream-err-401.jsonl", "stream-partial.jsonl", "transcript-basic.jsonl"}) {
            for (const bool redact : {true, false})
                QTest::newRow(qPrintable(QStringLiteral("%1, %2").arg(QLatin1String(name),
                    redact ? QStringLiteral("redacted") : QStringLiteral("kept"))))
                    << QString::fromLatin1(name) << redact;
        }
    }

    void rendersWhatTheExporterRenders()
    {
        QFETCH(QString, name);
        QFETCH(bool, redact);
        LoadedRun run;
        QString why;
        QVERIFY2(LoadedRun::fromFile(capture(name), &run, &why), qPrintable(why));
        RunModel model;
        run.buildModel(&model);
        const QString source = QStringLiteral("alice/") + secret;
        for (const RunExporter::Format format :
            {RunExporter::Format::Html, RunExporter::Format::Markdown, RunExporter::Format::Json}) {
            RunExporter exporter;
            exporter.setRedacting(redact);
            exporter.addSecret(secret);
            const QByteArray expected
                = exporter.render(exporter.snapshot(model, source, run.problems), format);
            ExportJob job(model, source, run.problems, redact, {secret});
            const QByteArray bytes = job.render(format);
            QCOMPARE(bytes, expected);
            // The source names the secret: every format masks it, the JSON keeps it otherwise.
            if (redact)
                QVERIFY(!bytes.contains(secret.toUtf8()));
            else if (format == RunExporter::Format::Json)
                QVERIFY(bytes.contains(secret.toUtf8()));
            QCOMPARE(job.render(format), bytes);
        }
    }

    void cancelledWritesNothing()
    {
        LoadedRun run;
        QString why;
        QVERIFY2(LoadedRun::fromFile(capture(QStringLiteral("stream-basic.jsonl")), &run, &why),
            qPrintable(why));
        RunModel model;
        run.buildModel(&model);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.html"));
        ExportJob job(model, QStringLiteral("run"), {}, true);
        const std::atomic_bool cancelled {true};
        QVERIFY(!job.write(path, RunExporter::Format::Html, &cancelled));
        QVERIFY(!QFile::exists(path));

        const std::atomic_bool going {false};
        QVERIFY2(job.write(path, RunExporter::Format::Html, &going), qPrintable(job.why()));
        QVERIFY(QFileInfo(path).size() > 0);

        const QString missing = dir.filePath(QStringLiteral("no/such/folder/run.html"));
        QVERIFY(!job.write(missing, RunExporter::Format::Html));
        QVERIFY(!job.why().isEmpty());
        QVERIFY(!QFile::exists(missing));
    }
};

QTEST_GUILESS_MAIN(TestExportJob)
#include "tst_exportjob.moc"
