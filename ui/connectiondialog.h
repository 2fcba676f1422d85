#pragma once
// Edits and saves a connection profile. The API key is typed into a password field, never
// read back into it, and stored through KeyStore; the dialog says where a key lives,
// including the warning when no keyring was available and a file had to be used. A profile
// may name a fleet file instead of a server: it is loaded as it is picked, its error shown
// under it, and the server URL becomes the router's (shown, not editable).

#include "fleet/fleetconfig.h"
#include "security/profilestore.h"

#include <QDialog>
#include <QUrl>

#include <memory>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace sandscope {

namespace Ui {
class ConnectionDialog;
}

class ConnectionDialog : public QDialog {
    Q_OBJECT
public:
    // Neither store is owned.
    ConnectionDialog(ProfileStore *profiles, KeyStore *keys, QWidget *parent = nullptr);
    ~ConnectionDialog() override;

    void selectProfile(const QString &name);
    // The server and user of a connection made without a profile (from the command line), to
    // save it as one.
    // Focuses and selects the admin command field (an all-users view sent the user here).
    void focusAdminCommand();
    void prefill(const QUrl &serverUrl, const QString &userId);
    Profile profile() const; // as entered
    QString enteredApiKey() const; // empty: use the stored key
    KeyStorage keyStorage() const { return m_keyStorage; }
    QString keyStorageError() const { return m_keyStorageError; }

    bool isAcceptable(QString *why = nullptr) const;

    // One sentence for people about where a key is kept.
    static QString describeKeyStorage(
        KeyStorage where, const QString &fallbackDir, const QString &error);

    QComboBox *profileCombo() const;
    QLineEdit *adminEdit() const;
    QLineEdit *urlEdit() const;
    QLineEdit *userEdit() const;
    QLineEdit *keyEdit() const;
    QLineEdit *fleetEdit() const;
    QPushButton *fleetBrowseButton() const;
    // What the fleet file holds (members, router), or why it is not a fleet.
    QLabel *fleetInfoLabel() const;
    QSpinBox *timeoutSpin() const;
    QLabel *validationLabel() const;
    QLabel *keyStorageLabel() const;
    QDialogButtonBox *buttonBox() const;

private:
    void loadProfile(const QString &name);
    void revalidate();
    void saveAndAccept();
    // Loads the fleet file named in its field: the router's URL in the URL field, or the error.
    void loadFleet();
    void browseFleet();
    void growToFitWrappedLabels();

    std::unique_ptr<Ui::ConnectionDialog> m_ui;
    ProfileStore *m_profiles;
    KeyStore *m_keys;
    KeyStorage m_keyStorage = KeyStorage::None;
    QString m_keyStorageError;
    bool m_saving = false;
    FleetConfig m_fleet;
    QString m_fleetError; // of the file in the field; empty when it loaded or there is none
    QString m_plainUrl; // the URL typed for a plain server, given back when the fleet goes
};

} // namespace sandscope
