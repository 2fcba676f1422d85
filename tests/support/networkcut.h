#pragma once
// A TCP relay between Sandscope and a real server that can take the network away, for tests
// of what a dropped network or a sleeping host does to a live connection: while it is down
// nothing flows in either direction and nothing is closed (bytes sent meanwhile wait, as in a
// network that drops packets and TCP that resends them); a new connection is accepted but
// reaches the server only once the network is back. Connections the client gave up on
// meanwhile are closed towards the server once it is back.

#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrl>

#include <memory>
#include <vector>

namespace sandscope::test {

class NetworkCut : public QObject {
    Q_OBJECT
public:
    explicit NetworkCut(const QUrl &target, QObject *parent = nullptr);
    ~NetworkCut() override;

    bool listen(); // on a free loopback port
    QUrl url() const; // the target's URL with the relay's port
    void setDown(bool down);
    bool isDown() const { return m_down; }
    int connectionsSeen() const { return m_seen; }
    // The answer to a request that contains `needle` (in its head or body) is held back, with
    // anything else on its connection, until releaseAnswers(): a server slow to answer one
    // call while the rest flows. The needle must be short: a request on loopback arrives in
    // one or two reads, and one read holds it whole.
    void holdAnswersToRequestsContaining(const QByteArray &needle);
    void releaseAnswers();
    // A request that contains `needle` never reaches the server: the relay answers it with
    // 502 Bad Gateway and an HTML page, as a proxy in front of a failing server does.
    void refuseRequestsContaining(const QByteArray &needle) { m_refusedNeedle = needle; }

private:
    struct Pair {
        QPointer<QTcpSocket> client;
        QPointer<QTcpSocket> server; // null while the network is down
        bool clientClosed = false;
        bool serverClosed = false;
        bool answersHeld = false;
    };

    void accept();
    void connectServer(Pair *pair);
    void pump(Pair *pair);
    void drop(Pair *pair);

    QUrl m_target;
    QTcpServer m_listener;
    std::vector<std::unique_ptr<Pair>> m_pairs;
    bool m_down = false;
    int m_seen = 0;
    QByteArray m_heldNeedle;
    QByteArray m_refusedNeedle;
};

} // namespace sandscope::test
