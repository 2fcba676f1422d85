#include "networkcut.h"

#include <algorithm>

namespace sandscope::test {

NetworkCut::NetworkCut(const QUrl &target, QObject *parent)
    : QObject(parent)
    , m_target(target)
{
    connect(&m_listener, &QTcpServer::newConnection, this, &NetworkCut::accept);
}

NetworkCut::~NetworkCut()
{
    m_listener.close();
    // An abort tells `disconnected` at once: nothing may reach the pairs while they go.
    for (const auto &pair : m_pairs) {
        for (QTcpSocket *socket : {pair->client.data(), pair->server.data()}) {
            if (socket) {
                QObject::disconnect(socket, nullptr, this, nullptr);
                socket->abort();
            }
        }
    }
}

bool NetworkCut::listen()
{
    return m_listener.listen(QHostAddress::LocalHost, 0);
}

QUrl NetworkCut::url() const
{
    QUrl url = m_target;
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(m_listener.serverPort());
    return url;
}

void NetworkCut::setDown(bool down)
{
    m_down = down;
    if (down)
        return;
    // Back: what waited flows, connections made meanwhile reach the server, and those the
    // client closed meanwhile are closed on the server's side too.
    const std::vector<Pair *> pairs = [this] {
        std::vector<Pair *> out;
        for (const auto &pair : m_pairs)
            out.push_back(pair.get());
        return out;
    }();
    for (Pair *pair : pairs) {
        if (!pair->server && !pair->clientClosed)
            connectServer(pair);
        else
            pump(pair);
    }
}

void NetworkCut::holdAnswersToRequestsContaining(const QByteArray &needle)
{
    m_heldNeedle = needle;
}

void NetworkCut::releaseAnswers()
{
    m_heldNeedle.clear();
    std::vector<Pair *> pairs;
    for (const auto &pair : m_pairs) {
        pair->answersHeld = false;
        pairs.push_back(pair.get());
    }
    for (Pair *pair : pairs)
        pump(pair);
}

void NetworkCut::accept()
{
    while (QTcpSocket *client = m_listener.nextPendingConnection()) {
        ++m_seen;
        auto owned = std::make_unique<Pair>();
        Pair *pair = owned.get();
        pair->client = client;
        client->setParent(this);
        m_pairs.push_back(std::move(owned));
        connect(client, &QTcpSocket::readyRead, this, [this, pair] { pump(pair); });
        connect(client, &QTcpSocket::disconnected, this, [this, pair] {
            pair->clientClosed = true;
            pump(pair);
        });
        if (!m_down)
            connectServer(pair);
    }
}

void NetworkCut::connectServer(Pair *pair)
{
    auto *server = new QTcpSocket(this);
    pair->server = server;
    connect(server, &QTcpSocket::connected, this, [this, pair] { pump(pair); });
    connect(server, &QTcpSocket::readyRead, this, [this, pair] { pump(pair); });
    connect(server, &QTcpSocket::disconnected, this, [this, pair] {
        pair->serverClosed = true;
        pump(pair);
    });
    connect(server, &QAbstractSocket::errorOccurred, this, [this, pair] {
        pair->serverClosed = true;
        pump(pair);
    });
    server->connectToHost(QHostAddress::LocalHost, quint16(m_target.port()));
}

void NetworkCut::pump(Pair *pair)
{
    if (m_down)
        return; // nothing moves, nothing closes
    QTcpSocket *client = pair->client;
    QTcpSocket *server = pair->server;
    if (server && client && client->isOpen()
        && server->state() == QAbstractSocket::ConnectedState) {
        const QByteArray bytes = client->readAll();
        if (!m_refusedNeedle.isEmpty() && bytes.contains(m_refusedNeedle)) {
            static const QByteArray page = "<html><body><h1>502 Bad Gateway</h1></body></html>";
            client->write("HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\n"
                          "Connection: close\r\nContent-Length: "
                + QByteArray::number(page.size()) + "\r\n\r\n" + page);
            client->flush();
            drop(pair);
            return;
        }
        if (!m_heldNeedle.isEmpty() && bytes.contains(m_heldNeedle))
            pair->answersHeld = true;
        server->write(bytes);
    }
    if (pair->answersHeld)
        return; // nothing back, nothing closed, until released
    if (server && client && server->isOpen() && client->state() == QAbstractSocket::ConnectedState)
        client->write(server->readAll());
    if (pair->clientClosed || pair->serverClosed)
        drop(pair);
}

void NetworkCut::drop(Pair *pair)
{
    // The sockets live until the event loop deletes them: nothing of theirs reaches the pair
    // any more.
    for (QTcpSocket *socket : {pair->client.data(), pair->server.data()}) {
        if (socket)
            QObject::disconnect(socket, nullptr, this, nullptr);
    }
    if (pair->client) {
        pair->client->disconnectFromHost();
        pair->client->deleteLater();
    }
    if (pair->server) {
        pair->server->disconnectFromHost();
        pair->server->deleteLater();
    }
    m_pairs.erase(std::remove_if(m_pairs.begin(), m_pairs.end(),
                      [pair](const std::unique_ptr<Pair> &owned) { return owned.get() == pair; }),
        m_pairs.end());
}

} // namespace sandscope::test
