// Redaction of exports against hostile content (issue 27): every secret form is masked in every
// export format, also where the raw JSON spells the text with escapes (a token on its own line
// follows "\n"; "\u0073k-ant-…"); JSON text is redacted on its decoded strings and stays valid
// JSON; and a seeded random property test plants random secrets at random positions of random
// strings of a capture (tool output, command, assistant text) and checks that no export format
// holds any of them (SANDSCOPE_REDACTION_SEED picks another seed, SANDSCOPE_REDACTION_ROUNDS more
// rounds).

#include "capturelines.h"
#include "export/runexporter.h"
#include "exportfixture.h"
#include "sandscopecli.h"
#include "security/credentialredactor.h"
#include "security/secretredactor.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest/QTest>

#include <functional>

using namespace sandscope;

namespace {

const QString mask = QString::fromUtf16(SecretRedactor::mask);

// A capture of one turn: assistant text, a Bash call with `command`, its output, a result.
QByteArray captureWith(const QString &text, const QString &command, const QString &output)
{
    namespace c = test::capture;
    const QString session = QStringLiteral("11111111-2222-3333-4444-555555555555");
    return c::systemInit(session)
        + c::assistant(session,
            {c::textBlock(text),
                c::toolUseBlock(QStringLiteral("toolu_1"), QStringLiteral("Bash"),
                    {{QStringLiteral("command"), command}})})
        + c::toolResult(session, QStringLiteral("toolu_1"), output) + c::result(session);
}

// One secret: its text and the random part that must not survive (letters and digits only, so
// no writer escapes it into another spelling).
struct Secret {
    QString text;
    QString core;
    bool lineStart = false; // a form that is a secret only at the start of a line (YAML)
    bool known = false; // masked because the exporter was told it (the API key)
};

QString randomWord(QRandomGenerator &random, int length, const char *alphabet)
{
    const int size = int(qstrlen(alphabet));
    QString word;
    for (int i = 0; i < length; ++i)
        word += QLatin1Char(alphabet[random.bounded(size)]);
    return word;
}

constexpr auto alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

// The random core always holds a digit (short bearer tokens are recognised by one).
QString coreOf(QRandomGenerator &random, int length, const char *alphabet = alnum)
{
    return randomWord(random, length - 1, alphabet) + QString::number(random.bounded(10));
}

// The forms issue 27 lists, and the token shapes that were masked before.
Secret randomSecret(QRandomGenerator &random)
{
    const QString core = coreOf(random, 12 + random.bounded(24));
    switch (random.bounded(16)) {
    case 0:
        return {QStringLiteral("sk-ant-api03-") + core + QStringLiteral("AA"), core};
    case 1: {
        const QString token = coreOf(random, 36);
        return {QStringLiteral("ghp_") + token, token};
    }
    case 2: {
        const QString id = coreOf(random, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
        return {QStringLiteral("AKIA") + id, id};
    }
    case 3:
        return {QStringLiteral("eyJhbGciOiJIUzI1NiJ9.eyJ") + core + QStringLiteral(".sig")
                + core.left(10),
            core};
    case 4:
        return {QStringLiteral("Bearer ") + core.left(6 + random.bounded(6)) + QLatin1Char('7'),
            core.left(6)};
    case 5:
        return {QStringLiteral("bearer ") + core, core};
    case 6:
        return {QStringLiteral("Authorization: Basic ") + core + QStringLiteral("=="), core};
    case 7:
        return {QStringLiteral("-----BEGIN RSA PRIVATE KEY-----\nMIIE") + core
                + QStringLiteral("\n") + coreOf(random, 20)
                + QStringLiteral("\n-----END RSA PRIVATE KEY-----"),
            core};
    case 8:
        return {QStringLiteral("aws_secret_access_key = ") + core, core};
    case 9:
        return {QStringLiteral("password: ") + core, core, true};
    case 10:
        return {QStringLiteral("https://deploy:") + core + QStringLiteral("@git.example.com/x.git"),
            core};
    case 11:
        return {QStringLiteral("mysql -u root -p") + core + QStringLiteral(" shop"), core};
    case 12:
        return {QStringLiteral("\\u0073k-ant-api03-") + core, core};
    case 13:
        return {QStringLiteral("GITHUB_TOKEN=") + core, core};
    case 14:
        return {QStringLiteral("{\"client_secret\": \"") + core + QStringLiteral("\"}"), core};
    default:
        return {core + QStringLiteral("xK"), core, false, true};
    }
}

// Random text: words, punctuation, quotes, backslashes, control characters, non-ASCII.
QString randomText(QRandomGenerator &random)
{
    static const QStringList pieces {QStringLiteral("ls -la"), QStringLiteral("\n"),
        QStringLiteral("\r\n"), QStringLiteral("\t"), QStringLiteral("\""), QStringLiteral("\\"),
        QStringLiteral("\\n"), QStringLiteral("{\"a\": [1, 2]}"), QStringLiteral("ü€😀"),
        QStringLiteral("\x1b[31m"), QStringLiteral("`"), QStringLiteral("```"),
        QStringLiteral("<img src=x>"), QStringLiteral("|"), QStringLiteral("# "),
        QStringLiteral("key"), QStringLiteral("token: 4096"), QStringLiteral(" "),
        QStringLiteral("="), QStringLiteral("'")};
    QString text;
    const int count = random.bounded(12);
    for (int i = 0; i < count; ++i)
        text += pieces.at(random.bounded(int(pieces.size())));
    return text;
}

// What may stand right before and after a secret: anything that ends a word.
QString randomSeparator(QRandomGenerator &random)
{
    static const QStringList separators {QStringLiteral("\n"), QStringLiteral(" "),
        QStringLiteral("\t"), QStringLiteral("\r\n"), QStringLiteral("\""), QStringLiteral("'"),
        QStringLiteral("("), QStringLiteral(", "), QStringLiteral("\n\n")};
    return separators.at(random.bounded(int(separators.size())));
}

} // namespace

class TestExportRedaction : public QObject {
    Q_OBJECT

private slots:
    void everyFormMaskedInEveryFormat_data();
    void everyFormMaskedInEveryFormat();
    void tokensOnTheirOwnLineAreMaskedInJson_data();
    void tokensOnTheirOwnLineAreMaskedInJson();
    void redactedJsonStaysValidJson_data();
    void redactedJsonStaysValidJson();
    void jsonWithoutSecretsIsUnchanged();
    void secretMembersAreMaskedWhole();
    void harmlessTextIsKept_data();
    void harmlessTextIsKept();
    void randomSecretsAtRandomPositions();
    void fileExportMasksTheKnownKey();
};

void TestExportRedaction::everyFormMaskedInEveryFormat_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("secret");
    QTest::addColumn<QString>("kept");
    QTest::newRow("pem block")
        << "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQUJDREVGR0hJSktM\n"
           "-----END OPENSSH PRIVATE KEY-----\ndone"
        << "QUJDREVGR0hJSktM"
        << "-----BEGIN OPENSSH PRIVATE KEY-----";
    QTest::newRow("pem block cut short")
        << "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
        << "MIIEvQIBADANBgkq"
        << "BEGIN PRIVATE KEY";
    QTest::newRow("aws ini with spaces")
        << "[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG"
        << "wJalrXUtnFEMI"
        << "aws_secret_access_key = ";
    QTest::newRow("lowercase bearer") << "curl -H 'authorization: bearer abcdefghijklmnop1234'"
                                      << "abcdefghijklmnop1234"
                                      << "authorization: bearer";
    QTest::newRow("short bearer") << "-H \"Bearer x9f3k2\""
                                  << "x9f3k2"
                                  << "Bearer ";
    QTest::newRow("yaml password") << "db:\n  user: app\n  password: hunter2hunter\n"
                                   << "hunter2hunter"
                                   << "  user: app";
    QTest::newRow("yaml quoted") << "- api_key: 'q8w7e6r5t4'"
                                 << "q8w7e6r5t4"
                                 << "api_key: '";
    // Found by fuzz_redaction: a password of digits is no count.
    QTest::newRow("numeric yaml password") << "db:\n  password: 8472193355\n"
                                           << "8472193355"
                                           << "  password: ";
    QTest::newRow("numeric env password") << "DB_PASSWORD=8472193355 ./run"
                                          << "8472193355"
                                          << "DB_PASSWORD=";
    QTest::newRow("numeric json secret") << R"({"client_secret": "8472193355"})"
                                         << "8472193355"
                                         << "client_secret";
    QTest::newRow("url credentials") << "git clone https://bob:Pa55w0rdX@github.com/o/r.git"
                                     << "Pa55w0rdX"
                                     << "@github.com/o/r.git";
    QTest::newRow("basic auth") << "Authorization: Basic dXNlcjpwYXNzd29yZA=="
                                << "dXNlcjpwYXNzd29yZA"
                                << "Authorization: Basic ";
    QTest::newRow("mysql -p") << "mysql -u root -pS3cretPw shop < dump.sql"
                              << "S3cretPw"
                              << "shop < dump.sql";
    QTest::newRow("mysqldump --password") << "mysqldump --password=S3cretPw2 shop"
                                          << "S3cretPw2"
                                          << "shop";
    QTest::newRow("escaped sk-ant") << R"({\"k\": \"\u0073k-ant-api03-AbCdEf0123456789XyZ\"})"
                                    << "AbCdEf0123456789XyZ"
                                    << R"(\"k\")";
    QTest::newRow("escaped ghp") << R"(\u0067hp_0123456789abcdefghijABCDEFGHIJ)"
                                 << "0123456789abcdefghij"
                                 << "";
}

void TestExportRedaction::everyFormMaskedInEveryFormat()
{
    QFETCH(QString, text);
    QFETCH(QString, secret);
    QFETCH(QString, kept);
    const CredentialRedactor redactor;
    const QString out = redactor.redact(text);
    QVERIFY2(!out.contains(secret), qPrintable(out));
    QVERIFY2(out.contains(mask), qPrintable(out));
    QVERIFY2(out.contains(kept), qPrintable(out));
    // In a tool's output, in its command and in assistant text, in every format.
    const QList<QByteArray> exports = test::exportsOfCapture(captureWith(text, text, text));
    QCOMPARE(exports.size(), 3);
    for (const QByteArray &exported : exports)
        QVERIFY2(!exported.contains(secret.toUtf8()), exported.constData());
}

void TestExportRedaction::tokensOnTheirOwnLineAreMaskedInJson_data()
{
    QTest::addColumn<QString>("token");
    QTest::newRow("github") << "ghp_0123456789abcdefghijABCDEFGHIJ";
    QTest::newRow("anthropic") << "sk-ant-api03-AbCdEf0123456789AbCdEf";
    QTest::newRow("aws id") << "AKIAABCDEFGHIJKLMNOP";
    QTest::newRow("jwt") << "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4";
}

// The finding: in raw, result_raw and structured_result a newline is the two characters "\n",
// and the "n" glued to the token kept it from matching.
void TestExportRedaction::tokensOnTheirOwnLineAreMaskedInJson()
{
    QFETCH(QString, token);
    const QString output = QStringLiteral("keys:\n") + token + QStringLiteral("\nend");
    const QList<QByteArray> exports = test::exportsOfCapture(
        captureWith(QStringLiteral("hi"), QStringLiteral("cat keys"), output));
    QCOMPARE(exports.size(), 3);
    for (const QByteArray &exported : exports)
        QVERIFY2(!exported.contains(token.toUtf8()), exported.constData());
    const QByteArray raw = R"({"type":"user","content":"keys:\n)" + token.toUtf8() + R"(\nend"})";
    const QByteArray redacted = CredentialRedactor().redactJson(raw);
    QVERIFY2(!redacted.contains(token.toUtf8()), redacted.constData());
    QVERIFY(QJsonDocument::fromJson(redacted).isObject());
}

void TestExportRedaction::redactedJsonStaysValidJson_data()
{
    QTest::addColumn<QString>("file");
    for (const QString &file : test::exportableRunFiles())
        QTest::newRow(qPrintable(file)) << file;
}

// Every line of every capture and transcript, redacted, parses as it did.
void TestExportRedaction::redactedJsonStaysValidJson()
{
    QFETCH(QString, file);
    QFile in(QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + file);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const CredentialRedactor redactor;
    int number = 0;
    for (const QByteArray &line : in.readAll().split('\n')) {
        ++number;
        QJsonParseError before;
        QJsonDocument::fromJson(line, &before);
        if (before.error != QJsonParseError::NoError)
            continue;
        QJsonParseError after;
        const QJsonDocument redacted = QJsonDocument::fromJson(redactor.redactJson(line), &after);
        QVERIFY2(after.error == QJsonParseError::NoError,
            qPrintable(QStringLiteral("line %1: %2").arg(number).arg(after.errorString())));
        QVERIFY(!redacted.isNull());
    }
}

void TestExportRedaction::jsonWithoutSecretsIsUnchanged()
{
    // Escapes the writer chose stay as they were: only changed strings are encoded again.
    const QByteArray json
        = R"({"a" : "x\u00e9\/y\n", "b":[1,2.50,{"c":"\"q\""}], "max_tokens":4096,)"
          R"( "apiKeySource":"ANTHROPIC_API_KEY", "d":"cut)";
    QCOMPARE(CredentialRedactor().redactJson(json), json);
    const QByteArray text = "not json: \\n ghp_0123456789abcdefghijABCDEFGHIJ";
    QVERIFY(!CredentialRedactor().redactJson(text).contains("ghp_0123456789"));
}

void TestExportRedaction::secretMembersAreMaskedWhole()
{
    const QByteArray json
        = R"({"api_key":"two words here","client_secret":"x y","token_count":"12","name":"a"})";
    const QByteArray out = CredentialRedactor().redactJson(json);
    QVERIFY2(!out.contains("two words") && !out.contains("x y"), out.constData());
    QVERIFY(out.contains(R"("token_count":"12")"));
    QVERIFY(out.contains(R"("name":"a")"));
    QVERIFY(QJsonDocument::fromJson(out).isObject());
}

void TestExportRedaction::harmlessTextIsKept_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("prose bearer") << "the bearer of bearer tokens";
    QTest::newRow("url without credentials") << "https://example.com:8080/path@v2";
    QTest::newRow("mysql prompt") << "mysql -u root -p shop";
    QTest::newRow("counts") << "max_tokens = 4096\ntoken: 12";
    QTest::newRow("public key") << "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC\n";
    QTest::newRow("escaped accent") << "caf\\u00e9 ol\\u00e9";
}

void TestExportRedaction::harmlessTextIsKept()
{
    QFETCH(QString, text);
    QCOMPARE(CredentialRedactor().redact(text), text);
}

void TestExportRedaction::randomSecretsAtRandomPositions()
{
    const quint32 seed = qEnvironmentVariableIsSet("SANDSCOPE_REDACTION_SEED")
        ? quint32(qEnvironmentVariableIntValue("SANDSCOPE_REDACTION_SEED"))
        : 27u;
    const int rounds = qEnvironmentVariableIsSet("SANDSCOPE_REDACTION_ROUNDS")
        ? qEnvironmentVariableIntValue("SANDSCOPE_REDACTION_ROUNDS")
        : 200;
    QRandomGenerator random(seed);
    for (int round = 0; round < rounds; ++round) {
        // Each place is random text with secrets between its pieces (never inside another).
        QList<QStringList> places {
            {randomText(random)}, {randomText(random)}, {randomText(random)}};
        QList<Secret> planted;
        QString known;
        for (int count = 1 + random.bounded(3); count > 0; --count) {
            const Secret secret = randomSecret(random);
            if (secret.known) {
                if (!known.isEmpty())
                    continue;
                known = secret.text;
            }
            QStringList &pieces = places[random.bounded(3)];
            const int piece = 2 * random.bounded(int(pieces.size() + 1) / 2); // a text piece
            const QString text = pieces.at(piece);
            qsizetype at = random.bounded(int(text.size()) + 1);
            // Never inside a surrogate pair or a "\r\n".
            while (at > 0 && at < text.size()
                && (text.at(at).isLowSurrogate() || text.at(at) == QLatin1Char('\n')))
                --at;
            const QString before
                = secret.lineStart ? QStringLiteral("\n") : randomSeparator(random);
            pieces[piece] = text.left(at);
            pieces.insert(piece + 1, before + secret.text + randomSeparator(random));
            pieces.insert(piece + 2, text.mid(at));
            planted.append(secret);
        }
        const QString a = places.at(0).join(QString());
        const QString b = places.at(1).join(QString());
        const QString c = places.at(2).join(QString());
        const QList<QByteArray> exports = test::exportsOfCapture(captureWith(a, b, c), known);
        QCOMPARE(exports.size(), 3);
        for (const Secret &secret : std::as_const(planted))
            for (const QByteArray &exported : exports) {
                const qsizetype at = exported.indexOf(secret.core.toUtf8());
                QVERIFY2(at < 0,
                    qPrintable(QStringLiteral("seed %1 round %2: %3 survived in …%4…")
                                   .arg(seed)
                                   .arg(round)
                                   .arg(secret.text,
                                       QString::fromUtf8(
                                           exported.mid(std::max<qsizetype>(0, at - 120), 240)))));
            }
    }
}

// `sandscope export FILE` masks the server's key when it is known (SANDSCOPE_API_KEY), even
// where it has no token shape.
void TestExportRedaction::fileExportMasksTheKnownKey()
{
    const QString key = QStringLiteral("plainServerKey42x");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("capture.jsonl"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(captureWith(QStringLiteral("the key is ") + key, QStringLiteral("echo ") + key,
        key + QStringLiteral("\n")));
    file.close();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), key);
    for (const char *format : {"md", "html", "json"}) {
        const test::CliOutcome exported = test::runSandscope(
            {QStringLiteral("export"), path, QStringLiteral("--format"), QLatin1String(format)},
            environment);
        QCOMPARE(exported.exitCode, 0);
        QVERIFY(!exported.out.isEmpty());
        QVERIFY2(!exported.out.contains(key.toUtf8()), format);
    }
}

QTEST_GUILESS_MAIN(TestExportRedaction)
#include "tst_exportredaction.moc"
