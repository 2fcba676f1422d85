#include "serverstatusview.h"

#include "connection/serversession.h"
#include "terminal/followstatus.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>

namespace sandscope {

ServerStatusView::ServerStatusView(QWidget *parent)
    : QWidget(parent)
    , m_server(new QLabel(this))
    , m_member(new QLabel(this))
    , m_version(new QLabel(this))
    , m_features(new QLabel(this))
    , m_mode(new QLabel(this))
    , m_live(new QLabel(this))
{
    m_live->setObjectName(QStringLiteral("liveLabel"));
    m_server->setObjectName(QStringLiteral("serverLabel"));
    m_member->setObjectName(QStringLiteral("memberLabel"));
    m_version->setObjectName(QStringLiteral("versionLabel"));
    m_features->setObjectName(QStringLiteral("featuresLabel"));
    m_mode->setObjectName(QStringLiteral("modeLabel"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    bool first = true;
    for (QLabel *label : {m_server, m_member, m_version, m_features, m_mode, m_live}) {
        if (!first) {
            auto *separator = new QFrame(this);
            separator->setFrameShape(QFrame::VLine);
            separator->setFrameShadow(QFrame::Sunken);
            layout->addWidget(separator);
            m_separators.append(separator);
        }
        first = false;
        label->setContentsMargins(4, 0, 4, 0);
        layout->addWidget(label);
    }
}

void ServerStatusView::showFacts(const ServerSession &session)
{
    setLabels(session);
    setMemberLabel(session);
    const QLabel *const separated[] = {m_member, m_version, m_features, m_mode, m_live};
    for (int i = 0; i < m_separators.size(); ++i)
        m_separators.at(i)->setVisible(!separated[i]->text().isEmpty());
}

QString ServerStatusView::text() const
{
    QStringList parts;
    for (const QLabel *label : {m_server, m_member, m_version, m_features, m_mode, m_live}) {
        if (!label->text().isEmpty())
            parts << label->text();
    }
    return parts.join(QStringLiteral(" · "));
}

void ServerStatusView::watchFollowing(FollowStatus *status)
{
    if (m_followStatus)
        disconnect(m_followStatus, nullptr, this, nullptr);
    m_followStatus = status;
    const auto update = [this] {
        m_live->setText(m_followStatus ? m_followStatus->text() : QString());
        m_live->setToolTip(m_followStatus ? m_followStatus->toolTip() : QString());
        m_separators.constLast()->setVisible(!m_live->text().isEmpty());
    };
    if (status)
        connect(status, &FollowStatus::changed, this, update);
    update();
}

void ServerStatusView::setMemberLabel(const ServerSession &session)
{
    switch (session.actingMemberState()) {
    case ServerSession::MemberState::NoFleet:
        m_member->clear();
        m_member->setToolTip(QString());
        return;
    case ServerSession::MemberState::Finding:
        m_member->setText(tr("finding the member…"));
        m_member->setToolTip(tr("Asking every member of the fleet which holds the home of the "
                                "acting user"));
        return;
    case ServerSession::MemberState::Known: {
        const QStringList members = session.actingMembers();
        m_member->setText(members.size() > 1
                ? tr("on member %1 (and %2 more)").arg(members.first()).arg(members.size() - 1)
                : tr("on member %1").arg(members.first()));
        const QString router = tr("Per-user actions go through the router %1, which sends this "
                                  "user to %2.")
                                   .arg(session.serverUrl(), members.first());
        m_member->setToolTip(session.actingMemberNote().isEmpty()
                ? router
                : router + QStringLiteral("\n") + session.actingMemberNote());
        return;
    }
    case ServerSession::MemberState::NotKnown:
        m_member->setText(tr("member not known"));
        m_member->setToolTip(session.actingMemberNote());
        return;
    }
}

void ServerStatusView::setLabels(const ServerSession &session)
{
    const ServerReport &report = session.report();
    if (report.url.isEmpty()) {
        m_server->setText(tr("not connected"));
        m_version->clear();
        m_features->clear();
        m_mode->clear();
        return;
    }
    m_server->setText(session.isFleet() ? tr("fleet router %1").arg(report.url)
                                        : tr("server %1").arg(report.url));
    m_server->setToolTip(session.isFleet()
            ? tr("The fleet of %1: %2")
                  .arg(
                      session.fleetFile(), session.fleet().memberNames().join(QStringLiteral(", ")))
            : QString());
    if (!session.isConnected()) {
        m_version->setText(session.isChecking() ? tr("connecting…") : tr("not connected"));
        m_features->clear();
        m_mode->clear();
        return;
    }
    const ServerInfo &info = report.info;
    m_version->setText(tr("open-terminal %1")
                           .arg(info.version.isEmpty() ? tr("(unknown version)") : info.version));
    QStringList features;
    if (info.features.terminal)
        features << tr("terminal");
    if (info.features.notebooks)
        features << tr("notebooks");
    if (info.features.system)
        features << tr("system");
    m_features->setText(features.isEmpty()
            ? tr("no optional features")
            : tr("features: %1").arg(features.join(QStringLiteral(", "))));
    if (session.knownMode().isEmpty()) {
        m_mode->setText(tr("mode not determined"));
        m_mode->setToolTip(tr("The mode is found by comparing a user's account with the "
                              "server's; switch to a user to find out."));
    } else {
        m_mode->setText(session.knownMode());
        m_mode->setToolTip(session.knownModeEvidence());
    }
}

} // namespace sandscope
