#pragma once
// The status bar's permanent facts about the server: its URL, the open-terminal version, the
// optional features and the mode (multi- or single-user, with how that was learnt as a tool
// tip), each shown only when known, separated by thin lines. With a fleet, the member the
// acting user lives on ("on member open-terminal-1", or "member not known" and why).

#include <QList>
#include <QPointer>
#include <QWidget>

class QFrame;
class QLabel;

namespace sandscope {

class FollowStatus;
class ServerSession;

class ServerStatusView : public QWidget {
    Q_OBJECT
public:
    explicit ServerStatusView(QWidget *parent = nullptr);

    void showFacts(const ServerSession &session);
    // How live views get their bytes (pushed, reconnecting, polled and why), kept up to date.
    void watchFollowing(FollowStatus *status);
    // The facts as one line, e.g. "server … · open-terminal 0.14.5 · …".
    QString text() const;

private:
    void setLabels(const ServerSession &session);
    void setMemberLabel(const ServerSession &session);

    QLabel *m_server;
    QLabel *m_member;
    QLabel *m_version;
    QLabel *m_features;
    QLabel *m_mode;
    QLabel *m_live;
    QPointer<FollowStatus> m_followStatus;
    QList<QFrame *> m_separators; // before the member, version, features, mode and live labels
};

} // namespace sandscope
