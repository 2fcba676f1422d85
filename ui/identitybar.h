#pragma once
// The permanent "acting as" banner at the top of the main window. Each user id gets its own
// stable colour so a glance tells who requests run as; the server account (no X-User-Id,
// privileged in multi-user mode) gets a distinct red warning look no user colour can reach.

#include <QColor>
#include <QFrame>
#include <QString>

class QLabel;
class QPushButton;

namespace sandscope {

class IdentityBar : public QFrame {
    Q_OBJECT
public:
    explicit IdentityBar(QWidget *parent = nullptr);

    // userId empty = the server account. account empty = not observed yet.
    void setIdentity(const QString &userId, const QString &account = {});
    void setAccount(const QString &account);
    // The server refuses requests without a user id (newer multi-user servers): acting as the
    // server account reaches nothing, and the bar says so instead of "privileged".
    void setServerAccountRefused(bool refused);
    // The account could not be found out (the check failed): said instead of "checking".
    void setAccountUnknown(bool unknown);
    void setProfileName(const QString &profile);
    // Without a connection the bar says so instead of naming an identity.
    void setConnected(bool connected);
    // A secondary remark, e.g. that a single-user server ignores user ids.
    void setNote(const QString &note);
    QString note() const { return m_noteText; }

    QString userId() const { return m_userId; }
    QString account() const { return m_account; }
    bool isServerAccount() const { return m_userId.isEmpty(); }
    bool isConnected() const { return m_connected; }
    // The indicator as shown, e.g. "Acting as alice (sst_alice_1a2b3c4d)".
    QString text() const;
    QColor backgroundColour() const { return m_background; }
    bool showsWarning() const;

    // Stable across runs and Qt versions; hue kept away from the red reserved for the
    // server account.
    static QColor colourForUser(const QString &userId);
    static QColor serverAccountColour();
    static QColor disconnectedColour();

Q_SIGNALS:
    void switchUserRequested();

private:
    void refresh();

    QLabel *m_icon;
    QLabel *m_label;
    QLabel *m_note;
    QLabel *m_profile;
    QPushButton *m_switchButton;
    QString m_userId;
    QString m_account;
    bool m_serverAccountRefused = false;
    bool m_accountUnknown = false;
    QString m_profileName;
    QString m_noteText;
    bool m_connected = false;
    QColor m_background;
};

} // namespace sandscope
