// JsonTreeModel: rows, values and types of a small document in its own order (repeated keys and
// every digit of an integer kept), consistency under
// QAbstractItemModelTester across loads and clears, invalid and deeply nested JSON, the node
// budget for huge documents and the display cut of long strings.

#include "previews/jsontreemodel.h"

#include <QAbstractItemModelTester>
#include <QtTest/QTest>

using sandscope::JsonTreeModel;

namespace {

QString cell(const JsonTreeModel &model, const QModelIndex &parent, int row, int column)
{
    return model.index(row, column, parent).data().toString();
}

// JSON written with single quotes, so that the tests need no escaping.
QByteArray json(const char *singleQuoted)
{
    return QByteArray(singleQuoted).replace('\'', '"');
}

QByteArray nestedArrays(int depth)
{
    return QByteArray(depth, '[') + QByteArray(depth, ']');
}

QStringList childKeys(const QAbstractItemModel &model, const QModelIndex &parent = {})
{
    QStringList keys;
    for (int row = 0; row < model.rowCount(parent); ++row)
        keys.append(model.index(row, JsonTreeModel::KeyColumn, parent).data().toString());
    return keys;
}

} // namespace

class TestJsonTreeModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void showsMembersElementsAndTypes()
    {
        JsonTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model.loadJson(
            json("{'name':'demo','items':[1,2.5,'x\\ny',null,true,{'k':[]}],'empty':{}}")));

        QCOMPARE(model.rowCount(), 3);
        // Members in the document's order.
        QCOMPARE(cell(model, {}, 0, JsonTreeModel::KeyColumn), QStringLiteral("name"));
        QCOMPARE(cell(model, {}, 0, JsonTreeModel::ValueColumn), QStringLiteral("demo"));
        QCOMPARE(cell(model, {}, 0, JsonTreeModel::TypeColumn), QStringLiteral("string"));
        QCOMPARE(cell(model, {}, 1, JsonTreeModel::KeyColumn), QStringLiteral("items"));
        QCOMPARE(cell(model, {}, 1, JsonTreeModel::ValueColumn), QStringLiteral("[6]"));
        QCOMPARE(cell(model, {}, 1, JsonTreeModel::TypeColumn), QStringLiteral("array"));
        QCOMPARE(cell(model, {}, 2, JsonTreeModel::KeyColumn), QStringLiteral("empty"));
        QCOMPARE(cell(model, {}, 2, JsonTreeModel::ValueColumn), QStringLiteral("{0}"));

        const QModelIndex items = model.index(1, 0);
        QCOMPARE(model.rowCount(items), 6);
        const QStringList keys
            = {QStringLiteral("[0]"), QStringLiteral("[1]"), QStringLiteral("[2]"),
                QStringLiteral("[3]"), QStringLiteral("[4]"), QStringLiteral("[5]")};
        const QStringList values
            = {QStringLiteral("1"), QStringLiteral("2.5"), QStringLiteral("x⏎y"),
                QStringLiteral("null"), QStringLiteral("true"), QStringLiteral("{1}")};
        const QStringList types
            = {QStringLiteral("number"), QStringLiteral("number"), QStringLiteral("string"),
                QStringLiteral("null"), QStringLiteral("boolean"), QStringLiteral("object")};
        for (int row = 0; row < 6; ++row) {
            QCOMPARE(cell(model, items, row, JsonTreeModel::KeyColumn), keys.at(row));
            QCOMPARE(cell(model, items, row, JsonTreeModel::ValueColumn), values.at(row));
            QCOMPARE(cell(model, items, row, JsonTreeModel::TypeColumn), types.at(row));
        }
        const QModelIndex inner = model.index(5, 0, items);
        QCOMPARE(cell(model, inner, 0, JsonTreeModel::KeyColumn), QStringLiteral("k"));
        QCOMPARE(model.parent(model.index(0, 0, inner)), inner);
        QCOMPARE(model.parent(inner), items);
        QVERIFY(!model.isTruncated());
    }

    void treeListsMembersInTheDocumentsOrder()
    {
        JsonTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model.loadJson(
            "{\"zeta\": 1, \"alpha\": {\"y\": 0, \"b\": [3, 2], \"a\": null}, \"mid\": \"x\"}"));
        QCOMPARE(childKeys(model), QString::fromLatin1("zeta alpha mid").split(u' '));
        QCOMPARE(childKeys(model, model.index(1, 0)), QString::fromLatin1("y b a").split(u' '));
        QCOMPARE(
            model.index(0, JsonTreeModel::TypeColumn).data().toString(), QStringLiteral("number"));
        QCOMPARE(
            model.index(1, JsonTreeModel::ValueColumn).data().toString(), QStringLiteral("{3}"));
    }

    void treeKeepsRepeatedKeysAndEveryDigit()
    {
        JsonTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model.loadJson(
            "{\"a\": 1, \"a\": 2, \"big\": 12345678901234567891, \"neg\": -9007199254740993}"));
        QCOMPARE(childKeys(model), QString::fromLatin1("a a big neg").split(u' '));
        QCOMPARE(model.index(1, JsonTreeModel::ValueColumn).data().toString(), QStringLiteral("2"));
        QCOMPARE(model.index(2, JsonTreeModel::ValueColumn).data().toString(),
            QStringLiteral("12345678901234567891"));
        QCOMPARE(model.index(3, JsonTreeModel::ValueColumn).data().toString(),
            QStringLiteral("-9007199254740993"));
    }

    void staysConsistentAcrossReloadAndClear()
    {
        JsonTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model.loadJson(json("[{'a':[1,[2,[3]]]},{'b':{'c':{'d':null}}}]")));
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(model.loadJson(json("{'x':1}")));
        QCOMPARE(model.rowCount(), 1);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.loadJson("[]"));
        QCOMPARE(model.rowCount(), 0);
    }

    void invalidJsonLeavesModelEmptyWithMessage()
    {
        JsonTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model.loadJson(json("{'ok':true}")));
        QString error;
        QVERIFY(!model.loadJson(json("{'a': [1, 2,}"), &error));
        QCOMPARE(model.rowCount(), 0);
        QVERIFY2(error.contains(QLatin1String("at byte")), qPrintable(error));
    }

    void deepNestingWithinParserLimitBuildsFullPath()
    {
        JsonTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int depth = 500;
        QVERIFY(model.loadJson(nestedArrays(depth)));
        QModelIndex index;
        int levels = 0;
        while (model.rowCount(index) > 0) {
            index = model.index(0, 0, index);
            ++levels;
        }
        QCOMPARE(levels, depth - 1);
    }

    void absurdNestingIsRejectedNotCrashed()
    {
        JsonTreeModel model;
        QString error;
        QVERIFY(!model.loadJson(nestedArrays(100000), &error));
        QVERIFY(!error.isEmpty());
        QCOMPARE(model.rowCount(), 0);
    }

    void nodeBudgetSummarisesTheRest()
    {
        JsonTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setMaxNodes(100);
        QByteArray json = "[";
        for (int i = 0; i < 1000; ++i)
            json += QByteArray::number(i) + (i < 999 ? "," : "]");
        QVERIFY(model.loadJson(json));
        QCOMPARE(model.rowCount(), 101);
        QCOMPARE(cell(model, {}, 99, JsonTreeModel::ValueColumn), QStringLiteral("99"));
        QCOMPARE(cell(model, {}, 100, JsonTreeModel::ValueColumn), QStringLiteral("900 more"));
        QVERIFY(model.isTruncated());
        QCOMPARE(model.nodeCount(), 100);
    }

    void longStringsAreCutForDisplay()
    {
        JsonTreeModel model;
        const QByteArray longValue(5000, 'v');
        QVERIFY(model.loadJson("{\"s\":\"" + longValue + "\"}"));
        const QString shown = cell(model, {}, 0, JsonTreeModel::ValueColumn);
        QVERIFY2(shown.size() < 1100, qPrintable(QString::number(shown.size())));
        QVERIFY(shown.endsWith(QLatin1String("(5000 characters)")));
    }
};

QTEST_GUILESS_MAIN(TestJsonTreeModel)
#include "tst_jsontreemodel.moc"
