#include "jsonindent.h"

#include <algorithm>

namespace sandscope {

QString indentedJson(const QByteArray &json)
{
    constexpr int maxIndentLevels = 32; // deeper levels stay flat; output stays O(size)
    QByteArray out;
    out.reserve(json.size() + json.size() / 2);
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    auto newline = [&] {
        out += '\n';
        out.append(2 * std::min(depth, maxIndentLevels), ' ');
    };
    auto isSpace = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    };
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json.at(i);
        if (inString) {
            out += c;
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        switch (c) {
        case '"':
            inString = true;
            out += c;
            break;
        case '{':
        case '[': {
            qsizetype next = i + 1;
            while (next < json.size() && isSpace(json.at(next)))
                ++next;
            if (next < json.size() && (json.at(next) == '}' || json.at(next) == ']')) {
                out += c; // empty container: keep "{}" / "[]" on one line
                out += json.at(next);
                i = next;
                break;
            }
            out += c;
            ++depth;
            newline();
            break;
        }
        case '}':
        case ']':
            depth = std::max(0, depth - 1);
            newline();
            out += c;
            break;
        case ',':
            out += c;
            newline();
            break;
        case ':':
            out += ": ";
            break;
        case ' ':
        case '\t':
        case '\n':
        case '\r':
            break;
        default:
            out += c;
        }
    }
    return QString::fromUtf8(out);
}

} // namespace sandscope
