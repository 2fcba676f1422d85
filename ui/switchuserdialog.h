#pragma once
// Chooses the acting user id. The id is validated as it is typed (the reason is shown), the
// accounts the two naming rules predict are shown as a hint, and acting as the privileged
// server account needs its own explicit checkbox.

#include "server/accountnames.h"

#include <QDialog>

#include <memory>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace sandscope {

namespace Ui {
class SwitchUserDialog;
}

class SwitchUserDialog : public QDialog {
    Q_OBJECT
public:
    explicit SwitchUserDialog(QWidget *parent = nullptr);
    ~SwitchUserDialog() override;

    // The naming rule this server was seen to use: only its prediction is shown.
    void setAccountRule(AccountRule rule);
    // Prefix of the server's account names (from the probe), used for the prediction.
    void setAccountPrefix(const QString &prefix);
    // Pre-selects the current identity; empty = the server account.
    void setUserId(const QString &userId);
    // The chosen id; empty when the server account was chosen.
    QString userId() const;
    bool isServerAccountChosen() const;
    bool isAcceptable() const;

    QLineEdit *userIdEdit() const;
    QCheckBox *serverAccountCheck() const;
    QLabel *validationLabel() const;
    QLabel *predictionLabel() const;
    QDialogButtonBox *buttonBox() const;

private:
    void revalidate();

    std::unique_ptr<Ui::SwitchUserDialog> m_ui;
    QString m_prefix;
    bool m_ruleKnown = false;
    AccountRule m_rule = AccountRule::FirstEightAlnum;
};

} // namespace sandscope
