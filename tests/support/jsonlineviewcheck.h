#pragma once
// The property JsonLineView holds (app/streamjson/jsonlineview.h), checked on one line: when
// the view reads it, simdjson's DOM parser accepts it and every value reads the same through
// both (the whole line dumped through each API by one template, and every root key looked up
// with at_key), with each stage 1 the view can use. Shared by tst_jsonlineview and the fuzzer
// (fuzz_runparser).

#include "streamjson/jsonlineview.h"
#include "streamjson/structuralindexer.h"

#include <QByteArray>

#include <algorithm>
#include <simdjson.h>
#include <string_view>
#include <vector>

namespace sandscope::test {

inline QByteArray bytes(std::string_view text)
{
    return QByteArray(text.data(), qsizetype(text.size()));
}

// A value as text, read through one API: the same template for the DOM and for the view.
template <typename Element, typename Object, typename Array> QByteArray dump(const Element &value);

template <typename Element, typename Object, typename Array>
inline QByteArray dumpObject(const Object &object)
{
    QByteArray out = "{";
    for (const auto field : object)
        out.append('"')
            .append(bytes(field.key))
            .append("\":")
            .append(dump<Element, Object, Array>(field.value))
            .append(',');
    return out.append('}');
}

template <typename Element, typename Object, typename Array>
inline QByteArray dump(const Element &value)
{
    Object object;
    if (value.get(object) == simdjson::SUCCESS)
        return dumpObject<Element, Object, Array>(object);
    Array array;
    if (value.get(array) == simdjson::SUCCESS) {
        QByteArray out = "[";
        for (const auto element : array)
            out.append(dump<Element, Object, Array>(element)).append(',');
        return out.append(']');
    }
    std::string_view text;
    if (value.get(text) == simdjson::SUCCESS)
        return QByteArray("s:").append(bytes(text));
    int64_t integer = 0;
    if (value.get(integer) == simdjson::SUCCESS)
        return QByteArray("i:").append(QByteArray::number(qint64(integer)));
    uint64_t unsignedInteger = 0;
    if (value.get(unsignedInteger) == simdjson::SUCCESS)
        return QByteArray("u:").append(QByteArray::number(quint64(unsignedInteger)));
    double real = 0;
    if (value.get(real) == simdjson::SUCCESS)
        return QByteArray("d:").append(QByteArray::number(real, 'g', 17));
    bool truth = false;
    if (value.get(truth) == simdjson::SUCCESS)
        return truth ? "true" : "false";
    return value.is_null() ? "null" : "?";
}

using DomElement = simdjson::dom::element;
using ViewElement = JsonLineView::Value;

struct Verdict {
    bool read = false; // the view read the line
    QByteArray wrong; // why the property does not hold, empty when it does
};

// Reads the padded line both ways, the view with the given stage 1 (each parser its own).
inline Verdict checkWith(const char *json, size_t length, JsonLineView::Stage1 stage1)
{
    Verdict verdict;
    simdjson::dom::parser viewParser;
    JsonLineView view(&viewParser, stage1);
    JsonLineView::Object viewRoot;
    verdict.read = view.read(json, length, &viewRoot);
    if (!verdict.read)
        return verdict;
    simdjson::dom::parser domParser;
    simdjson::dom::object domRoot;
    if (domParser.parse(json, length, false).get(domRoot) != simdjson::SUCCESS) {
        verdict.wrong = "the view read a line the DOM parser refuses";
        return verdict;
    }
    const QByteArray fromView
        = dumpObject<ViewElement, JsonLineView::Object, JsonLineView::Array>(viewRoot);
    const QByteArray fromDom
        = dumpObject<DomElement, simdjson::dom::object, simdjson::dom::array>(domRoot);
    if (fromView != fromDom) {
        verdict.wrong = QByteArray("read differently: view ")
                            .append(fromView.left(300))
                            .append(" / DOM ")
                            .append(fromDom.left(300));
        return verdict;
    }
    for (const auto field : domRoot) {
        const QByteArray viewValue = dump<ViewElement, JsonLineView::Object, JsonLineView::Array>(
            viewRoot.at_key(field.key));
        DomElement domValue;
        if (domRoot.at_key(field.key).get(domValue) != simdjson::SUCCESS
            || viewValue
                != dump<DomElement, simdjson::dom::object, simdjson::dom::array>(domValue)) {
            verdict.wrong = QByteArray("at_key(").append(bytes(field.key)).append(") differs");
            return verdict;
        }
    }
    // No key of a line the view reads holds a quote (it would need a backslash).
    if (viewRoot.at_key("no\"such key").error() != simdjson::NO_SUCH_FIELD)
        verdict.wrong = "a missing key was found";
    return verdict;
}

// Reads `line` both ways (the line followed by padding of its bytes), the view with each stage 1
// this processor runs: the property holds for each, and they read the same lines.
inline Verdict check(const QByteArray &line)
{
    std::vector<char> buffer(size_t(line.size()) + simdjson::SIMDJSON_PADDING, '\n');
    std::copy(line.cbegin(), line.cend(), buffer.begin());
    const char *json = buffer.data();
    const size_t length = size_t(line.size());
    const Verdict bySimdjson = checkWith(json, length, JsonLineView::Stage1::Simdjson);
    if (!bySimdjson.wrong.isEmpty() || !StructuralIndexer::isAvailable())
        return bySimdjson;
    Verdict fastest = checkWith(json, length, JsonLineView::Stage1::Fastest);
    if (fastest.wrong.isEmpty() && fastest.read != bySimdjson.read)
        fastest.wrong = fastest.read ? "only StructuralIndexer's stage 1 let the view read it"
                                     : "only simdjson's stage 1 let the view read it";
    return fastest;
}

} // namespace sandscope::test
