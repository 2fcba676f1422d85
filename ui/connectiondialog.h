#pragma once
// Edits and saves a connection profile. The API key is typed into a password field, never
// read back into it, and stored through KeyStore; the dialog says where a key lives,
// including the warning when no keyring was available and a file had to be used.

#include "security/profilestore.h"

#include <QDialog>
#include <QUrl>

#include <memory>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
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
    QSpinBox *timeoutSpin() const;
    QLabel *validationLabel() const;
    QLabel *keyStorageLabel() const;
    QDialogButtonBox *buttonBox() const;

private:
    void loadProfile(const QString &name);
    void revalidate();
    void saveAndAccept();

    std::unique_ptr<Ui::ConnectionDialog> m_ui;
    ProfileStore *m_profiles;
    KeyStore *m_keys;
    KeyStorage m_keyStorage = KeyStorage::None;
    QString m_keyStorageError;
    bool m_saving = false;
};

} // namespace sandscope
