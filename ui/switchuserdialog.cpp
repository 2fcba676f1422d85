#include "switchuserdialog.h"

#include "server/accountnames.h"
#include "server/connection.h"
#include "ui_switchuserdialog.h"

#include <QPushButton>

namespace sandscope {

SwitchUserDialog::SwitchUserDialog(QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::SwitchUserDialog>())
{
    m_ui->setupUi(this);
    connect(m_ui->userIdEdit, &QLineEdit::textChanged, this, &SwitchUserDialog::revalidate);
    connect(m_ui->serverAccountCheck, &QCheckBox::toggled, this, &SwitchUserDialog::revalidate);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, [this] {
        if (isAcceptable())
            accept();
    });
    revalidate();
}

SwitchUserDialog::~SwitchUserDialog() = default;

void SwitchUserDialog::setAccountPrefix(const QString &prefix)
{
    m_prefix = prefix;
    revalidate();
}

void SwitchUserDialog::setUserId(const QString &userId)
{
    m_ui->serverAccountCheck->setChecked(userId.isEmpty());
    m_ui->userIdEdit->setText(userId);
    m_ui->userIdEdit->selectAll();
    revalidate();
}

QString SwitchUserDialog::userId() const
{
    return isServerAccountChosen() ? QString() : m_ui->userIdEdit->text();
}

bool SwitchUserDialog::isServerAccountChosen() const
{
    return m_ui->serverAccountCheck->isChecked();
}

bool SwitchUserDialog::isAcceptable() const
{
    return isServerAccountChosen() || validateUserId(m_ui->userIdEdit->text());
}

QLineEdit *SwitchUserDialog::userIdEdit() const
{
    return m_ui->userIdEdit;
}

QCheckBox *SwitchUserDialog::serverAccountCheck() const
{
    return m_ui->serverAccountCheck;
}

QLabel *SwitchUserDialog::validationLabel() const
{
    return m_ui->validationLabel;
}

QLabel *SwitchUserDialog::predictionLabel() const
{
    return m_ui->predictionLabel;
}

QDialogButtonBox *SwitchUserDialog::buttonBox() const
{
    return m_ui->buttonBox;
}

void SwitchUserDialog::setAccountRule(AccountRule rule)
{
    m_ruleKnown = true;
    m_rule = rule;
    revalidate();
}

void SwitchUserDialog::revalidate()
{
    const bool serverAccount = isServerAccountChosen();
    const QString id = m_ui->userIdEdit->text();
    m_ui->userIdEdit->setEnabled(!serverAccount);

    QString why;
    const bool valid = validateUserId(id, &why);
    if (serverAccount) {
        m_ui->validationLabel->setText(
            tr("No user id is sent: every request runs with the server's own account."));
        m_ui->validationLabel->setStyleSheet(QStringLiteral("color: #b71c1c; font-weight: bold;"));
        m_ui->predictionLabel->setText(tr("the server's account"));
    } else if (!valid) {
        m_ui->validationLabel->setText(id.isEmpty() ? tr("Enter a user id.") : why);
        m_ui->validationLabel->setStyleSheet(QStringLiteral("color: #c62828;"));
        m_ui->predictionLabel->setText(QStringLiteral("–"));
    } else {
        m_ui->validationLabel->setText(tr("Valid user id."));
        m_ui->validationLabel->setStyleSheet(QStringLiteral("color: #2e7d32;"));
        if (m_ruleKnown) {
            m_ui->predictionLabel->setText(tr("%1 (by the naming this server was seen to use)")
                                               .arg(predictAccountName(id, m_rule, m_prefix)));
        } else {
            const QString legacy = predictAccountName(id, AccountRule::FirstEightAlnum, m_prefix);
            const QString hashed = predictAccountName(id, AccountRule::SlugWithHash, m_prefix);
            m_ui->predictionLabel->setText(
                tr("%1 or %2, depending on the server's naming; the connection shows the real one")
                    .arg(legacy, hashed));
        }
    }
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setEnabled(serverAccount || valid);
}

} // namespace sandscope
