#include "followprotocol.h"

#include <QFile>

#include <array>

namespace sandscope::followprotocol {

namespace {

const QByteArray framePrefix = QByteArrayLiteral("@SSF ");
// Printed by the bootstrap; each is written in two pieces on the command line, so the echo of
// the command (before `stty -echo` took effect) is never taken for them.
const QByteArray loadMarker = QByteArrayLiteral("@SSF-LOAD");
const QByteArray noPythonMarker = QByteArrayLiteral("@SSF-NOPYTHON");

std::array<quint32, 256> makeCrcTable()
{
    std::array<quint32, 256> table {};
    for (quint32 n = 0; n < 256; ++n) {
        quint32 c = n;
        for (int k = 0; k < 8; ++k)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
    return table;
}

bool toNumber(const QByteArray &field, qint64 *value)
{
    bool ok = false;
    *value = field.toLongLong(&ok);
    return ok && *value >= 0;
}

bool isId(const QByteArray &field)
{
    if (field.isEmpty() || field.size() > 64)
        return false;
    for (const char c : field) {
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
                || c == '_'))
            return false;
    }
    return true;
}

QByteArray fromBase64Field(const QByteArray &field, bool *ok)
{
    if (field == "-") {
        *ok = true;
        return {};
    }
    const auto decoded
        = QByteArray::fromBase64Encoding(field, QByteArray::AbortOnBase64DecodingErrors);
    *ok = decoded.decodingStatus == QByteArray::Base64DecodingStatus::Ok;
    return decoded.decoded;
}

QByteArray resourceText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray pathField(const QString &path)
{
    return path.toUtf8().toBase64();
}

} // namespace

quint32 crc32(const QByteArray &bytes)
{
    static const std::array<quint32, 256> table = makeCrcTable();
    quint32 c = 0xFFFFFFFFu;
    for (const char byte : bytes)
        c = table[(c ^ static_cast<quint8>(byte)) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

QByteArray frameLine(const QByteArray &fields)
{
    return framePrefix + fields + ' ' + QByteArray::number(crc32(fields), 16).rightJustified(8, '0')
        + '\n';
}

bool parseFrame(const QByteArray &input, Frame *frame, QString *why)
{
    QByteArray line = input;
    if (line.endsWith('\r'))
        line.chop(1);
    const int start = line.indexOf(framePrefix);
    if (start < 0)
        return false;
    line = line.mid(start + framePrefix.size());
    const int lastSpace = line.lastIndexOf(' ');
    const QByteArray body = line.left(lastSpace);
    bool crcOk = false;
    const quint32 crc = line.mid(lastSpace + 1).toUInt(&crcOk, 16);
    if (lastSpace < 1 || !crcOk || crc != crc32(body)) {
        *why = QStringLiteral("a frame of the follower failed its checksum");
        return true;
    }
    const QList<QByteArray> f = body.split(' ');
    const QByteArray &kind = f.at(0);
    Frame out;
    bool ok = true;
    auto hasFields = [&](int n) {
        return f.size() == n && (n < 2 || isId(f.at(1)));
    };
    if (kind == "R" && f.size() == 4) {
        out.kind = Frame::Kind::Ready;
        out.version = f.at(1).toInt(&ok);
        out.text = QString::fromLatin1(f.at(3));
    } else if (kind == "N" && hasFields(5)) {
        out.kind = Frame::Kind::Opened;
        ok = toNumber(f.at(2), &out.inode) && toNumber(f.at(3), &out.size)
            && toNumber(f.at(4), &out.offset);
    } else if (kind == "D" && hasFields(4)) {
        out.kind = Frame::Kind::Data;
        ok = toNumber(f.at(2), &out.offset);
        bool decoded = false;
        out.data = fromBase64Field(f.at(3), &decoded);
        ok = ok && decoded;
    } else if ((kind == "A" || kind == "M") && hasFields(3)) {
        out.kind = kind == "A" ? Frame::Kind::Agent : Frame::Kind::SubagentMeta;
        out.data = fromBase64Field(f.at(2), &ok);
    } else if (kind == "T" && hasFields(3)) {
        out.kind = Frame::Kind::Truncated;
        ok = toNumber(f.at(2), &out.size);
    } else if (kind == "C" && hasFields(3)) {
        out.kind = Frame::Kind::Created;
        out.text = QString::fromUtf8(fromBase64Field(f.at(2), &ok));
    } else if ((kind == "G" || kind == "X") && hasFields(2)) {
        out.kind = kind == "G" ? Frame::Kind::Gone : Frame::Kind::ProcessGone;
    } else if ((kind == "E" && hasFields(3)) || (kind == "F" && f.size() == 2)) {
        out.kind = kind == "E" ? Frame::Kind::Error : Frame::Kind::Fatal;
        out.text = QString::fromUtf8(fromBase64Field(f.constLast(), &ok));
    } else if (kind == "S" && f.size() == 2) {
        out.kind = Frame::Kind::Synced;
        out.text = QString::fromLatin1(f.at(1));
    } else if (kind == "H" && f.size() == 2) {
        out.kind = Frame::Kind::Heartbeat;
        ok = toNumber(f.at(1), &out.offset);
    } else {
        ok = false;
    }
    if (!ok) {
        *why = QStringLiteral("the follower sent a frame Sandscope does not understand: %1")
                   .arg(QString::fromLatin1(body.left(80)));
        return true;
    }
    if (f.size() >= 2 && kind != "R" && kind != "S" && kind != "H" && kind != "F")
        out.id = f.at(1);
    why->clear();
    *frame = out;
    return true;
}

void FrameReader::feed(const QByteArray &bytes)
{
    m_pending += bytes;
    int start = 0;
    for (;;) {
        const int end = m_pending.indexOf('\n', start);
        if (end < 0)
            break;
        takeLine(m_pending.mid(start, end - start));
        start = end + 1;
    }
    m_pending.remove(0, start);
    if (m_pending.size() > maxLineBytes) {
        if (m_damage.isEmpty())
            m_damage = QStringLiteral("the follower's output has a line of over %1 bytes")
                           .arg(maxLineBytes);
        m_pending.clear();
    }
}

void FrameReader::takeLine(const QByteArray &line)
{
    Frame frame;
    if (line.contains(loadMarker) || line.contains(noPythonMarker)) {
        frame.kind = line.contains(loadMarker) ? Frame::Kind::Loading : Frame::Kind::NoPython;
        m_frames.append(frame);
        return;
    }
    QString why;
    if (!parseFrame(line, &frame, &why))
        return; // not a frame: terminal noise
    if (!why.isEmpty()) {
        if (m_damage.isEmpty())
            m_damage = why;
        return;
    }
    m_frames.append(frame);
}

QList<Frame> FrameReader::takeFrames()
{
    return std::exchange(m_frames, {});
}

QByteArray program()
{
    return resourceText(QStringLiteral(":/sandscope/terminal/follower.py"));
}

QByteArray agentsProgram()
{
    // Its functions first: follower.py's last lines call agents_main().
    return resourceText(QStringLiteral(":/sandscope/terminal/followeragents.py")) + '\n'
        + program();
}

QByteArray bootstrapCommand()
{
    // A leading space keeps the line out of a history that ignores such lines. The program's
    // byte count is read exactly: nothing else is typed before the follower says it is ready.
    return QByteArrayLiteral(" stty -echo 2>/dev/null; command -v python3 >/dev/null 2>&1 || "
                             "echo '@SSF''-NOPYTHON'; exec python3 -u -c 'import sys;"
                             "sys.stdout.write(\"@SSF\"+\"-LOAD\\n\");sys.stdout.flush();"
                             "exec(compile(sys.stdin.buffer.read(")
        + QByteArray::number(program().size()) + QByteArrayLiteral("),\"follower\",\"exec\"))'\n");
}

QByteArray addCommand(const QByteArray &id, const QString &path, qint64 offset, qint64 inode,
    const QByteArray &received)
{
    const QByteArray tail = received.right(int(qMin<qint64>(tailBytes, offset)));
    const QByteArray tailField = tail.isEmpty()
        ? QByteArray("-")
        : QByteArray::number(tail.size()) + ':' + QByteArray::number(crc32(tail), 16);
    return "add " + id + ' ' + QByteArray::number(offset) + ' ' + QByteArray::number(inode) + ' '
        + pathField(path) + ' ' + tailField + '\n';
}

QByteArray processCommand(const QByteArray &id, const QString &pidFile, const QByteArray &needle)
{
    return "proc " + id + ' ' + pathField(pidFile) + ' ' + needle.toBase64() + '\n';
}

QByteArray treeCommand(const QByteArray &id, const QString &directory, qint64 sinceSecs)
{
    return "tree " + id + ' ' + pathField(directory) + ' ' + QByteArray::number(sinceSecs) + '\n';
}

QByteArray dropCommand(const QByteArray &id)
{
    return "drop " + id + '\n';
}

QByteArray syncCommand(const QByteArray &token)
{
    return "sync " + token + '\n';
}

QString agentsScript()
{
    // The program travels in a quoted here-document (no expansion), read by python3 from its
    // standard input before it starts.
    return QStringLiteral("set --; [ \"$(id -u)\" = 0 ] || set -- sudo -n\n"
                          "exec \"$@\" python3 -u - agents <<'SANDSCOPE_FOLLOWER_END'\n")
        + QString::fromUtf8(agentsProgram()) + QStringLiteral("\nSANDSCOPE_FOLLOWER_END\n");
}

} // namespace sandscope::followprotocol
