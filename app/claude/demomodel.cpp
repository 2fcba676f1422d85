#include "demomodel.h"

#include <QCoreApplication>

namespace sandscope {

const char *DemoModel::environmentVariable()
{
    return "SANDSCOPE_DEMO_MODEL_URL";
}

QString DemoModel::modelName()
{
    return QStringLiteral("sandscope-demo");
}

bool DemoModel::isDemoModel(const QString &model)
{
    return model == modelName();
}

QString DemoModel::describeModel(const QString &model)
{
    if (!isDemoModel(model))
        return model;
    return QCoreApplication::translate("DemoModel", "%1 (demo model: scripted answers, not Claude)")
        .arg(model);
}

QString DemoModel::offerText(const QUrl &url)
{
    return QCoreApplication::translate("DemoModel",
        "Demo model (scripted answers, not Claude) at %1: no Anthropic key is configured. "
        "\"CMD: <command>\" runs a command, \"WRITE: <path> <text>\" writes a file.")
        .arg(url.toString());
}

QUrl DemoModel::configuredUrl(const QProcessEnvironment &environment)
{
    const QUrl url(environment.value(QLatin1String(environmentVariable())), QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty()
        || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return {};
    return url;
}

bool DemoModel::realKeyConfigured(
    const QHash<QString, QString> &storedAgentEnvironment, const QProcessEnvironment &environment)
{
    const auto set = [](const QString &value) {
        return !value.trimmed().isEmpty();
    };
    return set(storedAgentEnvironment.value(QStringLiteral("ANTHROPIC_API_KEY")))
        || set(storedAgentEnvironment.value(QStringLiteral("ANTHROPIC_AUTH_TOKEN")))
        || set(environment.value(QStringLiteral("ANTHROPIC_API_KEY")));
}

QUrl DemoModel::offered(
    const QHash<QString, QString> &storedAgentEnvironment, const QProcessEnvironment &environment)
{
    if (realKeyConfigured(storedAgentEnvironment, environment))
        return {};
    return configuredUrl(environment);
}

QHash<QString, QString> DemoModel::agentEnvironment(const QUrl &url)
{
    return {{QStringLiteral("ANTHROPIC_BASE_URL"), url.toString()},
        {QStringLiteral("ANTHROPIC_API_KEY"), QStringLiteral("sandscope-demo-placeholder")},
        {QStringLiteral("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), QStringLiteral("1")},
        {QStringLiteral("DISABLE_AUTOUPDATER"), QStringLiteral("1")},
        {QStringLiteral("CLAUDE_CODE_MAX_RETRIES"), QStringLiteral("2")}};
}

} // namespace sandscope
