// Checks of the Kubernetes manifests in sandbox/k8s/ that run offline: every manifest passes
// `kubernetes-validate --strict` against the Kubernetes schemas that package bundles, the
// kustomization lists them all, and the facts the deployment relies on hold (the pinned image,
// the key from a Secret that holds no value, /health probes, /home on a persistent volume, the
// headless Service reaching the pods, the router listing every member by its pod name and
// generated from the files the tests run with nginx). Also that the compose file publishes the
// port on loopback only.
//
// kubernetes-validate is installed by scripts/install-deps.sh into its own virtualenv; its
// Python (which has PyYAML) also reads the YAML here. Outside CI a missing validator skips, with
// CI=true it fails.

#include "testing.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QtTest>

namespace {

// The Kubernetes version whose schemas the manifests are checked against (bundled by
// kubernetes-validate; the manifests use nothing newer).
const QString kubernetesVersion = QStringLiteral("1.30.0");

QString sandboxDir()
{
    return QFileInfo(QStringLiteral(SANDSCOPE_VERSIONS_FILE)).absolutePath();
}

QString k8sDir()
{
    return sandboxDir() + QStringLiteral("/k8s");
}

QString pinnedVersion(const QString &name)
{
    QFile file(QStringLiteral(SANDSCOPE_VERSIONS_FILE));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    static const QRegularExpression assignment(QStringLiteral("^([A-Z_]+)=(\\S+)$"));
    for (const QString &line : QString::fromUtf8(file.readAll()).split(u'\n')) {
        const QRegularExpressionMatch match = assignment.match(line.trimmed());
        if (match.hasMatch() && match.captured(1) == name)
            return match.captured(2);
    }
    return {};
}

// The validator on the PATH, else the one scripts/install-deps.sh puts into the cache.
QString validatorPath()
{
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("kubernetes-validate"));
    if (!onPath.isEmpty())
        return onPath;
    const QString cache = qEnvironmentVariableIsSet("SANDSCOPE_CACHE")
        ? qEnvironmentVariable("SANDSCOPE_CACHE")
        : QDir::homePath() + QStringLiteral("/.cache/sandscope");
    const QString installed
        = cache + QStringLiteral("/kubernetes-validate/bin/kubernetes-validate");
    return QFileInfo(installed).isExecutable() ? installed : QString();
}

// A Python with PyYAML: the validator's own virtualenv (it depends on PyYAML), else python3.
QString yamlPython()
{
    const QString validator = validatorPath();
    if (!validator.isEmpty()) {
        const QString venvPython = QFileInfo(validator).absolutePath() + QStringLiteral("/python3");
        if (QFileInfo(venvPython).isExecutable())
            return venvPython;
    }
    return QStandardPaths::findExecutable(QStringLiteral("python3"));
}

// Every YAML document of a file as JSON; `error` says why when the file could not be read.
QJsonArray yamlDocuments(const QString &path, QString *error)
{
    const QString python = yamlPython();
    if (python.isEmpty()) {
        *error = QStringLiteral("no python3");
        return {};
    }
    QProcess process;
    process.start(python,
        {QStringLiteral("-c"),
            QStringLiteral("import json, sys, yaml\n"
                           "docs = yaml.safe_load_all(open(sys.argv[1], encoding='utf-8'))\n"
                           "json.dump([d for d in docs if d is not None], sys.stdout)"),
            path});
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit
        || process.exitCode() != 0) {
        *error = QString::fromUtf8(process.readAllStandardError());
        if (error->isEmpty())
            *error = QStringLiteral("%1 did not finish").arg(python);
        return {};
    }
    return QJsonDocument::fromJson(process.readAllStandardOutput()).array();
}

// The manifests the validator checks: every YAML file of sandbox/k8s/ but the kustomization.
QStringList manifestNames()
{
    QStringList names = QDir(k8sDir()).entryList(
        {QStringLiteral("*.yaml"), QStringLiteral("*.yml")}, QDir::Files, QDir::Name);
    names.removeAll(QStringLiteral("kustomization.yaml"));
    return names;
}

QJsonObject object(const QJsonValue &value, const char *key)
{
    return value.toObject().value(QLatin1String(key)).toObject();
}

QJsonObject namedEntry(const QJsonArray &entries, const QString &name)
{
    for (const QJsonValue &entry : entries) {
        if (entry.toObject().value(QLatin1String("name")).toString() == name)
            return entry.toObject();
    }
    return {};
}

} // namespace

class K8sManifestsTest : public QObject {
    Q_OBJECT

    // "Kind/name" -> the resource, across the manifests
    QMap<QString, QJsonObject> m_resources;
    QString m_loadError;

    // The resource of that kind, named `name` (any name when there is one of the kind).
    QJsonObject resource(const char *kind, const char *name = nullptr) const
    {
        QJsonObject found;
        int count = 0;
        for (auto it = m_resources.cbegin(); it != m_resources.cend(); ++it) {
            if (it.key().section(u'/', 0, 0) != QLatin1String(kind))
                continue;
            if (name && it.key().section(u'/', 1) == QLatin1String(name))
                return it.value();
            found = it.value();
            ++count;
        }
        return !name && count == 1 ? found : QJsonObject();
    }

    QJsonObject podSpec() const
    {
        return object(
            object(resource("StatefulSet"), "spec").value(QLatin1String("template")), "spec");
    }

    QJsonObject container() const
    {
        const QJsonArray containers = podSpec().value(QLatin1String("containers")).toArray();
        return namedEntry(containers, QStringLiteral("open-terminal"));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(k8sDir()).isDir(), qPrintable(k8sDir()));
        QVERIFY2(manifestNames().size() >= 3, qPrintable(manifestNames().join(u' ')));
        for (const QString &name : manifestNames()) {
            QString error;
            const QJsonArray documents = yamlDocuments(k8sDir() + u'/' + name, &error);
            if (!error.isEmpty()) {
                m_loadError = name + QStringLiteral(": ") + error;
                return;
            }
            for (const QJsonValue &document : documents) {
                const QString key = document.toObject().value(QLatin1String("kind")).toString()
                    + u'/' + object(document, "metadata").value(QLatin1String("name")).toString();
                QVERIFY2(!m_resources.contains(key), qPrintable(QStringLiteral("two ") + key));
                m_resources.insert(key, document.toObject());
            }
        }
    }

    void manifestPassesStrictSchemaValidation_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : manifestNames())
            QTest::newRow(qPrintable(name)) << name;
        // Not in the kustomization: the ingress-nginx variant of the router.
        QTest::newRow("optional/ingress-nginx.yaml")
            << QStringLiteral("optional/ingress-nginx.yaml");
    }

    void manifestPassesStrictSchemaValidation()
    {
        QFETCH(QString, name);
        const QString validator = validatorPath();
        SANDSCOPE_REQUIRE(!validator.isEmpty(),
            "kubernetes-validate is missing (scripts/install-deps.sh installs it)");
        QProcess process;
        process.start(validator,
            {QStringLiteral("--strict"), QStringLiteral("--kubernetes-version"), kubernetesVersion,
                k8sDir() + u'/' + name});
        QVERIFY(process.waitForFinished(120000));
        const QString output
            = QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
        QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
            qPrintable(output));
        // An unknown kind or apiVersion is only a warning ("Couldn't find schema"): refuse it.
        QVERIFY2(output.contains(QLatin1String(" passed for resource ")), qPrintable(output));
        QVERIFY2(
            !output.contains(QLatin1String("WARN")) && !output.contains(QLatin1String("ERROR")),
            qPrintable(output));
    }

    void kustomizationListsEveryManifest()
    {
        QString error;
        const QJsonArray documents
            = yamlDocuments(k8sDir() + QStringLiteral("/kustomization.yaml"), &error);
        SANDSCOPE_REQUIRE(error.isEmpty(), error);
        const QJsonObject kustomization = documents.first().toObject();
        QCOMPARE(
            kustomization.value(QLatin1String("kind")).toString(), QStringLiteral("Kustomization"));
        QStringList listed;
        for (const QJsonValue &entry : kustomization.value(QLatin1String("resources")).toArray())
            listed << entry.toString();
        listed.sort();
        QCOMPARE(listed, manifestNames());
    }

    void statefulSetRunsThePinnedSandboxImageInMultiUserMode()
    {
        SANDSCOPE_REQUIRE(m_loadError.isEmpty(), m_loadError);
        QVERIFY2(!container().isEmpty(), "no container named open-terminal");
        const QString version = pinnedVersion(QStringLiteral("OPEN_TERMINAL_VERSION"));
        QVERIFY(!version.isEmpty());
        // The image docker-compose.yml builds from sandbox/Dockerfile: sandscope-sandbox:<pin>.
        const QString image = container().value(QLatin1String("image")).toString();
        const qsizetype colon = image.lastIndexOf(u':');
        QVERIFY2(colon > 0, qPrintable(image));
        QCOMPARE(image.mid(colon + 1), version);
        QVERIFY2(image.left(colon).endsWith(QLatin1String("sandscope-sandbox")), qPrintable(image));
        const QJsonArray env = container().value(QLatin1String("env")).toArray();
        QCOMPARE(namedEntry(env, QStringLiteral("OPEN_TERMINAL_MULTI_USER"))
                     .value(QLatin1String("value"))
                     .toString(),
            QStringLiteral("true"));
    }

    // Sharded: the members are the StatefulSet's pods, as many as the router lists, each by its
    // name through the headless Service; clients use the router's Service.
    // The members take connections from the router's pods only, on the member's own port: no
    // other pod, another member included, reaches a member (network.member of the probe).
    void membersAcceptConnectionsFromTheRouterOnly()
    {
        SANDSCOPE_REQUIRE(m_loadError.isEmpty(), m_loadError);
        const QJsonObject policy = resource("NetworkPolicy", "open-terminal-members");
        const QJsonObject spec = object(policy, "spec");
        const QJsonObject memberPods
            = object(object(resource("StatefulSet", "open-terminal"), "spec"), "template");
        const QJsonObject routerPods
            = object(object(resource("Deployment", "open-terminal-router"), "spec"), "template");
        const auto labelsOf = [](const QJsonObject &podTemplate) {
            return object(object(podTemplate, "metadata"), "labels");
        };
        const auto selects = [](const QJsonObject &selector, const QJsonObject &labels) {
            const QJsonObject wanted = object(selector, "matchLabels");
            if (wanted.isEmpty() || selector.contains(QLatin1String("matchExpressions")))
                return false;
            for (auto it = wanted.constBegin(); it != wanted.constEnd(); ++it) {
                if (labels.value(it.key()) != it.value())
                    return false;
            }
            return true;
        };
        QVERIFY(selects(object(spec, "podSelector"), labelsOf(memberPods)));
        QVERIFY(!selects(object(spec, "podSelector"), labelsOf(routerPods)));
        QCOMPARE(spec.value(QLatin1String("policyTypes")).toArray(),
            QJsonArray({QStringLiteral("Ingress")}));
        const QJsonArray rules = spec.value(QLatin1String("ingress")).toArray();
        QCOMPARE(rules.size(), 1);
        const QJsonArray from = rules.first().toObject().value(QLatin1String("from")).toArray();
        QCOMPARE(from.size(), 1);
        const QJsonObject peer = from.first().toObject();
        QCOMPARE(peer.keys(), QStringList({QStringLiteral("podSelector")}));
        QVERIFY(selects(object(peer, "podSelector"), labelsOf(routerPods)));
        QVERIFY(!selects(object(peer, "podSelector"), labelsOf(memberPods)));
        const QJsonArray ports = rules.first().toObject().value(QLatin1String("ports")).toArray();
        QCOMPARE(ports.size(), 1);
        const QString port = ports.first().toObject().value(QLatin1String("port")).toString();
        QVERIFY(!namedEntry(container().value(QLatin1String("ports")).toArray(), port).isEmpty());
    }

    void theRouterListsEveryMemberByItsPodName()
    {
        SANDSCOPE_REQUIRE(m_loadError.isEmpty(), m_loadError);
        QString error;
        const QJsonObject kustomization
            = yamlDocuments(k8sDir() + QStringLiteral("/kustomization.yaml"), &error)
                  .first()
                  .toObject();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QJsonObject replicas
            = namedEntry(kustomization.value(QLatin1String("replicas")).toArray(),
                QStringLiteral("open-terminal"));
        const int count = replicas.value(QLatin1String("count")).toInt();
        QVERIFY(count >= 2);
        const QJsonObject statefulSet = resource("StatefulSet", "open-terminal");
        QCOMPARE(object(statefulSet, "spec").value(QLatin1String("replicas")).toInt(), count);
        const QString headless
            = object(statefulSet, "spec").value(QLatin1String("serviceName")).toString();
        const QJsonObject members = resource("Service", qPrintable(headless));
        QCOMPARE(object(members, "spec").value(QLatin1String("clusterIP")).toString(),
            QStringLiteral("None"));
        QFile list(k8sDir() + QStringLiteral("/router/router-members.conf"));
        QVERIFY(list.open(QIODevice::ReadOnly));
        QStringList servers;
        for (const QByteArray &line : list.readAll().split('\n')) {
            if (line.startsWith("server "))
                servers << QString::fromUtf8(line.simplified());
        }
        QStringList expected;
        for (int i = 0; i < count; ++i)
            expected << QStringLiteral("server open-terminal-%1.%2:8000 max_fails=0;")
                            .arg(i)
                            .arg(headless);
        QCOMPARE(servers, expected);
        // The router's ConfigMap is generated from the very files the tests run.
        const QJsonObject generator
            = namedEntry(kustomization.value(QLatin1String("configMapGenerator")).toArray(),
                QStringLiteral("open-terminal-router"));
        QStringList files;
        for (const QJsonValue &file : generator.value(QLatin1String("files")).toArray())
            files << file.toString();
        QCOMPARE(files,
            QStringList(
                {QStringLiteral("router/router.conf"), QStringLiteral("router/router-members.conf"),
                    QStringLiteral("router/router-listen.conf")}));
        // Clients keep the URL http://open-terminal:8000: that Service reaches the router.
        const QJsonObject front = resource("Service", "open-terminal");
        const QJsonObject router = resource("Deployment", "open-terminal-router");
        QVERIFY(!router.isEmpty());
        const QJsonObject routerLabels = object(
            object(object(router, "spec").value(QLatin1String("template")), "metadata"), "labels");
        const QJsonObject selector = object(object(front, "spec"), "selector");
        QVERIFY(!selector.isEmpty());
        for (auto it = selector.begin(); it != selector.end(); ++it)
            QCOMPARE(routerLabels.value(it.key()).toString(), it.value().toString());
    }

    void apiKeyComesFromASecretThatHoldsNoKey()
    {
        SANDSCOPE_REQUIRE(m_loadError.isEmpty(), m_loadError);
        const QJsonObject key = namedEntry(container().value(QLatin1String("env")).toArray(),
            QStringLiteral("OPEN_TERMINAL_API_KEY"));
        QVERIFY2(!key.isEmpty(), "OPEN_TERMINAL_API_KEY is not set");
        QVERIFY2(!key.contains(QLatin1String("value")), "the key must not be in the manifest");
        const QJsonObject ref = object(key.value(QLatin1String("valueFrom")), "secretKeyRef");
        const QJsonObject secret = resource("Secret");
        QVERIFY2(!secret.isEmpty(), "no Secret manifest");
        QCOMPARE(ref.value(QLatin1String("name")).toString(),
            object(secret, "metadata").value(QLatin1String("name")).toString());
        QVERIFY(!ref.value(QLatin1String("key")).toString().isEmpty());
        // A missing key must keep the pod from starting, not start it without one.
        QVERIFY(!ref.value(QLatin1String("optional")).toBool(false));
        // The placeholder carries no value: applying it never replaces the real key.
        QVERIFY2(!secret.contains(QLatin1String("data"))
                && !secret.contains(QLatin1String("stringData")),
            "the Secret manifest must not hold a key");
        QVERIFY(!container().contains(QLatin1String("envFrom")));
    }

    void probesCheckHealth_data()
    {
        QTest::addColumn<QString>("probe");
        QTest::newRow("readiness") << QStringLiteral("readinessProbe");
        QTest::newRow("liveness") << QStringLiteral("livenessProbe");
    }

    void probesCheckHealth()
    {
        QFETCH(QString, probe);
        SANDSCOPE_REQUIRE(m_loadError.isEmpty(), m_loadError);
        const QJsonObject get = object(container().value(probe), "httpGet");
        QCOMPARE(get.value(QLatin1String("path")).toString(), QStringLiteral("/health"));
        // The port is the container's 8000, by number or by name.
        const QJsonValue port = get.value(QLatin1String("port"));
        const QJsonObject named
            = namedEntry(container().value(QLatin1String("ports")).toArray(), port.toString());
        const int number
            = port.isDouble() ? port.toInt() : named.value(QLatin1String("containerPort")).toInt();
        QCOMPARE(number, 8000);
    }

    void homeIsOnAPersistentVolume()
    {
        SANDSCOPE_REQUIRE(m_loadError.isEmpty(), m_loadError);
        QString volume;
        for (const QJsonValue &mount : container().value(QLatin1String("volumeMounts")).toArray()) {
            if (mount.toObject().value(QLatin1String("mountPath")).toString()
                == QLatin1String("/home"))
                volume = mount.toObject().value(QLatin1String("name")).toString();
        }
        QVERIFY2(!volume.isEmpty(), "/home is not mounted");
        // From a volumeClaimTemplate, not a pod volume of the same name (e.g. an emptyDir).
        QVERIFY(namedEntry(podSpec().value(QLatin1String("volumes")).toArray(), volume).isEmpty());
        bool claimed = false;
        for (const QJsonValue &claim : object(resource("StatefulSet"), "spec")
                                           .value(QLatin1String("volumeClaimTemplates"))
                                           .toArray()) {
            const QJsonObject template_ = claim.toObject();
            if (object(template_, "metadata").value(QLatin1String("name")).toString() == volume) {
                claimed = true;
                QVERIFY(!object(object(object(template_, "spec"), "resources"), "requests")
                             .value(QLatin1String("storage"))
                             .toString()
                             .isEmpty());
            }
        }
        QVERIFY2(claimed, qPrintable(volume + QStringLiteral(" is no volumeClaimTemplate")));
    }

    void containerHasResourceRequestsAndLimits()
    {
        SANDSCOPE_REQUIRE(m_loadError.isEmpty(), m_loadError);
        const QJsonObject resources = object(container(), "resources");
        for (const char *section : {"requests", "limits"}) {
            for (const char *what : {"cpu", "memory"}) {
                QVERIFY2(object(resources, section).contains(QLatin1String(what)),
                    qPrintable(
                        QStringLiteral("%1.%2").arg(QLatin1String(section), QLatin1String(what))));
            }
        }
    }

    void podGetsNoApiTokenAndNoServiceVariables()
    {
        SANDSCOPE_REQUIRE(m_loadError.isEmpty(), m_loadError);
        // Sandbox users run arbitrary commands in the pod.
        QCOMPARE(
            podSpec().value(QLatin1String("automountServiceAccountToken")).toBool(true), false);
        QCOMPARE(podSpec().value(QLatin1String("enableServiceLinks")).toBool(true), false);
    }

    void serviceReachesThePod()
    {
        SANDSCOPE_REQUIRE(m_loadError.isEmpty(), m_loadError);
        const QJsonObject statefulSet = resource("StatefulSet");
        const QJsonObject service = resource("Service",
            qPrintable(object(statefulSet, "spec").value(QLatin1String("serviceName")).toString()));
        QVERIFY(!service.isEmpty());
        const QJsonObject spec = object(service, "spec");
        QCOMPARE(spec.value(QLatin1String("clusterIP")).toString(), QStringLiteral("None"));
        QCOMPARE(
            object(resource("StatefulSet"), "spec").value(QLatin1String("serviceName")).toString(),
            object(service, "metadata").value(QLatin1String("name")).toString());
        const QJsonObject selector = object(spec, "selector");
        const QJsonObject podLabels = object(
            object(object(resource("StatefulSet"), "spec").value(QLatin1String("template")),
                "metadata"),
            "labels");
        QVERIFY(!selector.isEmpty());
        for (auto it = selector.begin(); it != selector.end(); ++it)
            QCOMPARE(podLabels.value(it.key()).toString(), it.value().toString());
        const QJsonObject port = spec.value(QLatin1String("ports")).toArray().first().toObject();
        const QJsonValue target = port.value(QLatin1String("targetPort"));
        const int targetNumber = target.isDouble()
            ? target.toInt()
            : namedEntry(container().value(QLatin1String("ports")).toArray(), target.toString())
                  .value(QLatin1String("containerPort"))
                  .toInt();
        QCOMPARE(targetNumber, 8000);
    }

    void composePublishesThePortOnLoopbackOnly()
    {
        QString error;
        const QJsonArray documents
            = yamlDocuments(sandboxDir() + QStringLiteral("/docker-compose.yml"), &error);
        SANDSCOPE_REQUIRE(error.isEmpty(), error);
        const QJsonObject sandbox = object(object(documents.first(), "services"), "sandbox");
        const QJsonArray ports = sandbox.value(QLatin1String("ports")).toArray();
        QVERIFY(!ports.isEmpty());
        for (const QJsonValue &port : ports) {
            // Short syntax "HOST_IP:HOST_PORT:CONTAINER_PORT", or the long one with host_ip.
            const QString hostIp = port.isString()
                ? port.toString().section(u':', 0, 0)
                : port.toObject().value(QLatin1String("host_ip")).toString();
            QVERIFY2(hostIp == QLatin1String("127.0.0.1"),
                qPrintable(QString::fromUtf8(QJsonDocument(QJsonArray {port}).toJson())));
        }
    }
};

QTEST_GUILESS_MAIN(K8sManifestsTest)
#include "tst_k8s_manifests.moc"
