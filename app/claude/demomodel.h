#pragma once
// The demo model: the scripted model server of tests/model_server, which scripts/run-local.sh
// starts when no Anthropic key is configured, so a first run works without one. The window
// learns of it only through SANDSCOPE_DEMO_MODEL_URL (set by run-local.sh, see the README),
// offers it only while no real key is configured, and names it as a demo wherever it shows a
// model: runs with it ask claude for the model "sandscope-demo", which the transcripts and
// the stream-json lines then carry.

#include <QHash>
#include <QProcessEnvironment>
#include <QString>
#include <QUrl>

namespace sandscope {

class DemoModel {
public:
    // The variable that names the demo model server's URL.
    static const char *environmentVariable();
    // The model name runs with the demo model ask for ("sandscope-demo").
    static QString modelName();
    static bool isDemoModel(const QString &model);
    // "sandscope-demo (demo model: scripted answers, not Claude)" for the demo's name, the name
    // itself otherwise.
    static QString describeModel(const QString &model);
    // What the New Run dialog says of it.
    static QString offerText(const QUrl &url);

    // The URL in `environment`'s SANDSCOPE_DEMO_MODEL_URL; invalid when unset or not http(s).
    static QUrl configuredUrl(const QProcessEnvironment &environment);
    // Whether a real key is configured: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN in the stored
    // agent environment, or ANTHROPIC_API_KEY in the app's environment.
    static bool realKeyConfigured(const QHash<QString, QString> &storedAgentEnvironment,
        const QProcessEnvironment &environment);
    // The demo model's URL when it is to be offered (configured and no real key), else invalid.
    static QUrl offered(const QHash<QString, QString> &storedAgentEnvironment,
        const QProcessEnvironment &environment);
    // The agent environment pointing claude at the demo server. Its ANTHROPIC_API_KEY is a fixed
    // placeholder the scripted server ignores, no secret.
    static QHash<QString, QString> agentEnvironment(const QUrl &url);
};

} // namespace sandscope
