#include "connectiondialog.h"

#include "server/adminaccess.h"
#include "server/connection.h"
#include "ui_connectiondialog.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QPointer>
#include <QPushButton>
#include <QUrl>

namespace sandscope {

ConnectionDialog::ConnectionDialog(ProfileStore *profiles, KeyStore *keys, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::ConnectionDialog>())
    , m_profiles(profiles)
    , m_keys(keys)
{
    m_ui->setupUi(this);
    m_ui->profileCombo->addItems(m_profiles->names());

    connect(
        m_ui->profileCombo, &QComboBox::currentTextChanged, this, &ConnectionDialog::loadProfile);
    // Picking the profile already shown fills its fields again (currentTextChanged does not
    // fire then).
    connect(m_ui->profileCombo, QOverload<int>::of(&QComboBox::activated), this,
        [this](int index) { loadProfile(m_ui->profileCombo->itemText(index)); });
    connect(m_ui->urlEdit, &QLineEdit::textChanged, this, &ConnectionDialog::revalidate);
    connect(m_ui->userEdit, &QLineEdit::textChanged, this, &ConnectionDialog::revalidate);
    connect(m_ui->adminEdit, &QLineEdit::textChanged, this, &ConnectionDialog::revalidate);
    connect(m_ui->fleetEdit, &QLineEdit::textChanged, this, &ConnectionDialog::loadFleet);
    connect(m_ui->fleetBrowseButton, &QPushButton::clicked, this, &ConnectionDialog::browseFleet);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &ConnectionDialog::saveAndAccept);
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("Connect"));
    m_ui->fleetInfoLabel->hide();

    const QString last = m_profiles->lastUsed();
    if (!last.isEmpty() && m_profiles->contains(last))
        selectProfile(last);
    else if (m_ui->profileCombo->currentText().isEmpty())
        m_ui->profileCombo->setEditText(QStringLiteral("default"));
    else // the first saved profile is shown: show its fields, not empty ones
        loadProfile(m_ui->profileCombo->currentText());
    revalidate();
}

ConnectionDialog::~ConnectionDialog() = default;

void ConnectionDialog::focusAdminCommand()
{
    m_ui->adminEdit->setFocus(Qt::OtherFocusReason);
    m_ui->adminEdit->selectAll();
}

void ConnectionDialog::prefill(const QUrl &serverUrl, const QString &userId)
{
    m_ui->urlEdit->setText(serverUrl.toString());
    m_ui->userEdit->setText(userId);
}

void ConnectionDialog::selectProfile(const QString &name)
{
    const int index = m_ui->profileCombo->findText(name);
    if (index >= 0)
        m_ui->profileCombo->setCurrentIndex(index);
    else
        m_ui->profileCombo->setEditText(name);
    loadProfile(name);
}

Profile ConnectionDialog::profile() const
{
    Profile result;
    result.name = m_ui->profileCombo->currentText().trimmed();
    result.serverUrl = QUrl(m_ui->urlEdit->text().trimmed(), QUrl::StrictMode);
    result.defaultUserId = m_ui->userEdit->text();
    result.timeoutMs = m_ui->timeoutSpin->value() * 1000;
    result.adminCommand = m_ui->adminEdit->text().trimmed();
    result.fleetFile = m_ui->fleetEdit->text().trimmed();
    return result;
}

QString ConnectionDialog::enteredApiKey() const
{
    return m_ui->keyEdit->text().trimmed();
}

bool ConnectionDialog::isAcceptable(QString *why) const
{
    QString reason;
    bool ok = true;
    if (m_ui->profileCombo->currentText().trimmed().isEmpty()) {
        ok = false;
        reason = tr("Give the profile a name.");
    } else if (!m_fleetError.isEmpty()) {
        ok = false;
        reason = tr("The fleet file is not a fleet (see above).");
    } else if (!validateServerUrl(m_ui->urlEdit->text().trimmed(), &reason)) {
        ok = false;
    } else if (!m_ui->userEdit->text().isEmpty()
        && !validateUserId(m_ui->userEdit->text(), &reason)) {
        ok = false;
        reason = tr("User id: %1").arg(reason);
    } else if (!m_ui->adminEdit->text().trimmed().isEmpty()) {
        AdminAccess access;
        if (!AdminAccess::fromCommand(m_ui->adminEdit->text(), &access, &reason)) {
            ok = false;
            reason = tr("Admin command: %1").arg(reason);
        }
    }
    if (why)
        *why = reason;
    return ok;
}

QString ConnectionDialog::describeKeyStorage(
    KeyStorage where, const QString &fallbackDir, const QString &error)
{
    switch (where) {
    case KeyStorage::Keyring:
        return tr("The API key is stored in the system keyring.");
    case KeyStorage::FallbackFile:
        return fallbackDir.isEmpty()
            ? tr("No keyring is available: the API key is stored in an owner-only file.")
            : tr("No keyring is available: the API key is stored in an owner-only file in %1.")
                  .arg(fallbackDir);
    case KeyStorage::None:
        break;
    }
    return error.isEmpty() ? tr("No API key is stored for this profile.")
                           : tr("The API key could not be stored or read: %1").arg(error);
}

QComboBox *ConnectionDialog::profileCombo() const
{
    return m_ui->profileCombo;
}

QLineEdit *ConnectionDialog::urlEdit() const
{
    return m_ui->urlEdit;
}

QLineEdit *ConnectionDialog::userEdit() const
{
    return m_ui->userEdit;
}

QLineEdit *ConnectionDialog::keyEdit() const
{
    return m_ui->keyEdit;
}

QLineEdit *ConnectionDialog::fleetEdit() const
{
    return m_ui->fleetEdit;
}

QPushButton *ConnectionDialog::fleetBrowseButton() const
{
    return m_ui->fleetBrowseButton;
}

QLabel *ConnectionDialog::fleetInfoLabel() const
{
    return m_ui->fleetInfoLabel;
}

QLineEdit *ConnectionDialog::adminEdit() const
{
    return m_ui->adminEdit;
}

QSpinBox *ConnectionDialog::timeoutSpin() const
{
    return m_ui->timeoutSpin;
}

QLabel *ConnectionDialog::validationLabel() const
{
    return m_ui->validationLabel;
}

QLabel *ConnectionDialog::keyStorageLabel() const
{
    return m_ui->keyStorageLabel;
}

QDialogButtonBox *ConnectionDialog::buttonBox() const
{
    return m_ui->buttonBox;
}

void ConnectionDialog::loadProfile(const QString &name)
{
    if (!m_profiles->contains(name)) {
        m_ui->keyStorageLabel->setText(tr("A new profile; its key is saved when you connect."));
        revalidate();
        return;
    }
    const Profile stored = m_profiles->profile(name);
    m_ui->fleetEdit->clear(); // the URL field editable again before the stored URL goes in
    m_ui->urlEdit->setText(stored.serverUrl.toString());
    m_ui->fleetEdit->setText(stored.fleetFile);
    m_ui->userEdit->setText(stored.defaultUserId);
    m_ui->timeoutSpin->setValue(qMax(1, stored.timeoutMs / 1000));
    m_ui->adminEdit->setText(stored.adminCommand);
    m_ui->keyEdit->clear();
    m_ui->keyStorageLabel->setText(tr("Looking up the stored key…"));

    // Only where the key lives is shown; the key itself is never put into the field.
    QPointer<ConnectionDialog> self(this);
    m_keys->readKey(name, [self, name](const QString &, KeyStorage where, const QString &error) {
        if (!self || self->m_ui->profileCombo->currentText() != name)
            return;
        self->m_ui->keyStorageLabel->setText(
            describeKeyStorage(where, self->m_keys->fallbackDir(), error));
        self->growToFitWrappedLabels(); // an error takes lines (a keyring's, a file's path)
    });
    revalidate();
}

void ConnectionDialog::loadFleet()
{
    const QString path = m_ui->fleetEdit->text().trimmed();
    const bool wasFleet = !m_fleet.members.isEmpty() || !m_fleetError.isEmpty();
    m_fleet = FleetConfig {};
    m_fleetError.clear();
    if (path.isEmpty()) {
        m_ui->fleetInfoLabel->hide();
        m_ui->urlEdit->setReadOnly(false);
        m_ui->urlEdit->setToolTip(QString());
        m_ui->adminEdit->setEnabled(true);
        if (wasFleet)
            m_ui->urlEdit->setText(m_plainUrl);
        revalidate();
        return;
    }
    if (!wasFleet)
        m_plainUrl = m_ui->urlEdit->text();
    // A small local file (at most 1 MiB, FleetConfig refuses more): read as it is typed.
    QString error;
    if (FleetConfig::load(path, &m_fleet, &error)) {
        m_ui->fleetInfoLabel->setText(tr("%n member(s): %1", nullptr, int(m_fleet.members.size()))
                                          .arg(m_fleet.memberNames().join(QStringLiteral(", "))));
        m_ui->fleetInfoLabel->setStyleSheet(QString());
        m_ui->urlEdit->setText(m_fleet.router.toString());
    } else {
        m_fleet = FleetConfig {};
        m_fleetError = error;
        m_ui->fleetInfoLabel->setText(error);
        m_ui->fleetInfoLabel->setStyleSheet(QStringLiteral("color: #c62828;"));
        m_ui->urlEdit->clear();
    }
    m_ui->fleetInfoLabel->show();
    // The router's URL comes from the file; each member's admin command too.
    m_ui->urlEdit->setReadOnly(true);
    m_ui->urlEdit->setToolTip(tr("The fleet's router, from the fleet file"));
    m_ui->adminEdit->setEnabled(false);
    revalidate();
    growToFitWrappedLabels();
}

void ConnectionDialog::growToFitWrappedLabels()
{
    // The form's wrapped labels need the height their text takes at this width; a dialog left
    // at its first size cut them to a line.
    layout()->activate();
    const int needed = layout()->totalHeightForWidth(width());
    if (needed > height())
        resize(width(), needed);
}

void ConnectionDialog::browseFleet()
{
    const QString current = m_ui->fleetEdit->text().trimmed();
    const QString path = QFileDialog::getOpenFileName(this, tr("Fleet File"),
        current.isEmpty() ? QString() : QFileInfo(current).path(),
        tr("Fleet files (*.json);;All files (*)"));
    if (!path.isEmpty())
        m_ui->fleetEdit->setText(path);
}

void ConnectionDialog::revalidate()
{
    QString why;
    const bool ok = isAcceptable(&why);
    if (!ok) {
        m_ui->validationLabel->setText(why);
        m_ui->validationLabel->setStyleSheet(QStringLiteral("color: #c62828;"));
    } else if (m_ui->userEdit->text().isEmpty()) {
        m_ui->validationLabel->setText(
            tr("Without a user id you act as the server account, which is privileged."));
        m_ui->validationLabel->setStyleSheet(QStringLiteral("color: #b26a00;"));
    } else {
        m_ui->validationLabel->clear();
    }
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setEnabled(ok && !m_saving);
}

void ConnectionDialog::saveAndAccept()
{
    if (m_saving || !isAcceptable())
        return;
    const Profile entered = profile();
    m_profiles->save(entered);
    m_profiles->setLastUsed(entered.name);

    const QString key = enteredApiKey();
    if (key.isEmpty()) {
        accept();
        return;
    }
    m_saving = true;
    m_ui->keyStorageLabel->setText(tr("Saving the API key…"));
    revalidate();
    QPointer<ConnectionDialog> self(this);
    m_keys->storeKey(entered.name, key, [self](KeyStorage where, const QString &error) {
        if (!self)
            return;
        self->m_saving = false;
        self->m_keyStorage = where;
        self->m_keyStorageError = error;
        self->m_ui->keyStorageLabel->setText(
            describeKeyStorage(where, self->m_keys->fallbackDir(), error));
        self->accept();
    });
}

} // namespace sandscope
