// libFuzzer target: arbitrary bytes, split into chunks anywhere, go through RunParser into a
// RunModel watched by QAbstractItemModelTester (Fatal), then every index and role is read.
// Finds crashes, sanitizer reports and model-contract violations on hostile streams.

#include "runs/runmodel.h"
#include "runs/runparser.h"

#include <QAbstractItemModelTester>
#include <QByteArray>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace {

void readEverything(const QAbstractItemModel &model, const QModelIndex &parent, int depth)
{
    if (depth > 64)
        return; // deep nesting is legal; reading it all once is enough for coverage
    for (int row = 0; row < model.rowCount(parent); ++row) {
        for (int column = 0; column < model.columnCount(parent); ++column) {
            const QModelIndex index = model.index(row, column, parent);
            for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)})
                index.data(role);
            if (column == 0) {
                for (int role = sandscope::RunModel::KindRole;
                     role <= sandscope::RunModel::LineNumberRole; ++role)
                    index.data(role);
            }
        }
        readEverything(model, model.index(row, 0, parent), depth + 1);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The first byte picks the chunk size, so both line-at-once and byte-split framing run.
    const qsizetype chunk = size > 0 ? 1 + data[0] * 16 : 1;
    const QByteArray input = QByteArray::fromRawData(
        reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));

    sandscope::RunParser parser;
    sandscope::RunModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QObject::connect(
        &parser, &sandscope::RunParser::eventsReady, &model, &sandscope::RunModel::addEvents);

    qint64 arrival = 0;
    for (qsizetype position = size > 0 ? 1 : 0; position < input.size(); position += chunk)
        parser.feedBytes(input.mid(position, chunk), arrival++);
    parser.finish(arrival);
    model.markRunEnded(arrival + 1);

    readEverything(model, QModelIndex(), 0);
    const sandscope::RunSummary summary = model.summary();
    summary.toJson();
    return 0;
}
