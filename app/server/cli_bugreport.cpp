// isolation-server bugreport: one text file to attach to a bug report. Versions, the engine's
// state through the LocalAPI (when it runs), the settings, the environment that steers the engine
// and the end of its log, all passed through one redaction (core/reportredaction.h) before the
// file is written, 0600. In the engine program: the versions are its libraries'.
#include "engineverbs.h"
#include "exitcodes.h"
#include "output.h"

#include "core/logging.h"
#include "core/paths.h"
#include "core/reportredaction.h"
#include "core/settings.h"
#include "core/version.h"
#include "localapi/localapiclient.h"
#include "runtime/dockerclient.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QProcessEnvironment>
#include <QSettings>
#include <QSysInfo>

#include <git2.h>
#include <openssl/crypto.h>

namespace isolation {

namespace {

constexpr int DefaultLogLines = 2000; // of engine.log, across its rotated files as needed
constexpr int TrayLogLines = 300;
constexpr int EngineTimeoutMs = 5000;
constexpr int DockerTimeoutMs = 3000;

QString section(const QString &title)
{
    return QStringLiteral("\n== %1 ==\n").arg(title);
}

QString field(const QString &name, const QString &value)
{
    return QStringLiteral("%1 %2\n").arg(name + QLatin1Char(':'), -18).arg(value);
}

QString str(const QJsonObject &o, const char *key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isBool())
        return v.toBool() ? QStringLiteral("yes") : QStringLiteral("no");
    if (v.isDouble())
        return QString::number(v.toInteger());
    return v.toString();
}

QString versions()
{
    QString text = section(QStringLiteral("Versions"));
    text += field(QStringLiteral("isolation-server"), QStringLiteral(ISOLATION_VERSION));
    text += field(QStringLiteral("Qt"),
        QStringLiteral("%1 (built with %2)").arg(QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
    int major = 0, minor = 0, revision = 0;
    git_libgit2_version(&major, &minor, &revision);
    text += field(QStringLiteral("libgit2"), QStringLiteral("%1.%2.%3").arg(major).arg(minor).arg(revision));
    text += field(QStringLiteral("OpenSSL"), QString::fromLatin1(OpenSSL_version(OPENSSL_VERSION)));
    text += field(QStringLiteral("System"),
        QStringLiteral("%1, kernel %2 %3 (%4)")
            .arg(QSysInfo::prettyProductName(), QSysInfo::kernelType(), QSysInfo::kernelVersion(),
                QSysInfo::currentCpuArchitecture()));
    auto docker = DockerClient::fromEnvironment();
    if (!docker) {
        text += field(QStringLiteral("Docker engine"), QStringLiteral("not reachable: %1").arg(docker.error().message));
    } else {
        DockerClient client(docker.value().socketPath(), DockerTimeoutMs);
        if (auto v = client.negotiate(); v)
            text += field(QStringLiteral("Docker engine"),
                QStringLiteral("%1 (API %2, %3/%4) on %5")
                    .arg(str(v.value(), "Version"), str(v.value(), "ApiVersion"), str(v.value(), "Os"),
                        str(v.value(), "Arch"), client.socketPath()));
        else
            text += field(QStringLiteral("Docker engine"),
                QStringLiteral("not reachable on %1: %2").arg(client.socketPath(), v.error().message));
    }
    return text;
}

QString hubWithoutUserInfo(const QString &url)
{
    return QUrl(url).adjusted(QUrl::RemoveUserInfo).toString();
}

// The engine as its LocalAPI says (one snapshot), for people first, then the snapshot itself.
QString engineState(const Paths &paths, bool *reachable)
{
    QString text = section(QStringLiteral("Engine"));
    LocalApiClient client(paths.socketPath(), EngineTimeoutMs);
    auto snapshot = client.call("GET", QStringLiteral("/v1/snapshot"));
    *reachable = bool(snapshot);
    if (!snapshot) {
        text += QStringLiteral("The engine was not reachable on %1: %2\n")
                    .arg(paths.socketPath(), snapshot.error().message);
        return text;
    }
    const QJsonObject snap = snapshot.value();
    const QJsonObject s = snap.value(QStringLiteral("status")).toObject();
    text += field(QStringLiteral("Reachable"), QStringLiteral("yes, on %1").arg(paths.socketPath()));
    text += field(QStringLiteral("State"), QStringLiteral("%1 (%2)").arg(str(s, "state"), str(s, "reason")));
    text += field(QStringLiteral("Paired"), str(s, "paired"));
    if (s.value(QStringLiteral("paired")).toBool())
        text
            += field(QStringLiteral("Server"), QStringLiteral("%1 (%2)").arg(str(s, "serverId"), str(s, "serverName")));
    text += field(QStringLiteral("Hub"), hubWithoutUserInfo(str(s, "hub")));
    text += field(QStringLiteral("Connected"), str(s, "connected"));
    text += field(QStringLiteral("Keys in"), str(s, "credentialStoreKind"));
    if (!str(s, "credentialStoreError").isEmpty())
        text += field(QStringLiteral("Keys problem"),
            QStringLiteral("%1 (%2)").arg(str(s, "credentialStoreError"), str(s, "credentialStoreProblem")));
    text += field(QStringLiteral("Engine"),
        QStringLiteral("version %1, pid %2, started %3").arg(str(s, "version"), str(s, "pid"), str(s, "startedAt")));
    for (const QJsonValue v : s.value(QStringLiteral("warnings")).toArray()) {
        const QJsonObject w = v.toObject();
        text += field(QStringLiteral("Warning"),
            QStringLiteral("%1 (%2, %3, since %4)")
                .arg(str(w, "message"), str(w, "code"), str(w, "severity"), str(w, "since")));
    }

    const QJsonObject pairing = snap.value(QStringLiteral("pairing")).toObject();
    if (!pairing.isEmpty())
        text += field(QStringLiteral("Pairing"),
            QStringLiteral("%1 %2").arg(str(pairing, "state"), str(pairing, "reason")).trimmed());

    text += section(QStringLiteral("Runtime"));
    const QJsonObject r = snap.value(QStringLiteral("runtime")).toObject();
    text += field(QStringLiteral("State"), QStringLiteral("%1 (%2)").arg(str(r, "state"), str(r, "reason")));
    if (!str(r, "image").isEmpty())
        text += field(QStringLiteral("Image"),
            str(r, "image")
                + (r.value(QStringLiteral("standin")).toBool() ? QStringLiteral(" (offline stand-in)") : QString()));
    if (!str(r, "digest").isEmpty())
        text += field(QStringLiteral("Digest"), str(r, "digest"));
    if (!str(r, "container").isEmpty())
        text += field(
            QStringLiteral("Container"), QStringLiteral("%1 (%2)").arg(str(r, "container"), str(r, "containerState")));
    if (!str(r, "health").isEmpty())
        text += field(QStringLiteral("Health"), str(r, "health"));
    if (r.contains(QStringLiteral("uptimeSeconds")))
        text += field(QStringLiteral("Uptime"),
            QStringLiteral("%1 s, %2 restarts").arg(str(r, "uptimeSeconds"), str(r, "restarts")));

    text += section(QStringLiteral("Sessions"));
    const QJsonArray sessions = snap.value(QStringLiteral("sessions")).toArray();
    if (sessions.isEmpty())
        text += QStringLiteral("none\n");
    for (const QJsonValue v : sessions) {
        const QJsonObject session = v.toObject();
        const QJsonObject sandbox = session.value(QStringLiteral("sandbox")).toObject();
        const QJsonObject agent = session.value(QStringLiteral("agent")).toObject();
        QString line = QStringLiteral("%1  workspace %2  %3")
                           .arg(str(session, "id"), str(session.value(QStringLiteral("workspace")).toObject(), "name"),
                               str(session, "state"));
        if (!sandbox.isEmpty())
            line += QStringLiteral("  sandbox %1").arg(str(sandbox, "state"));
        if (!agent.isEmpty())
            line += QStringLiteral("  agent %1").arg(str(agent, "state"));
        if (!str(session, "reason").isEmpty())
            line += QStringLiteral("  (%1)").arg(str(session, "reason"));
        text += line + QLatin1Char('\n');
    }

    text += section(QStringLiteral("Warm cache"));
    const QJsonObject cache = snap.value(QStringLiteral("cache")).toObject();
    if (cache.isEmpty()) {
        text += QStringLiteral("not open\n");
    } else {
        text += field(QStringLiteral("Size"),
            QStringLiteral("%1 of %2 bytes in %3")
                .arg(str(cache, "bytes"), str(cache, "maxBytes"), str(cache, "directory")));
        for (const QJsonValue v : cache.value(QStringLiteral("workspaces")).toArray()) {
            const QJsonObject w = v.toObject();
            text += QStringLiteral("%1 (%2)  %3 bytes  generation %4  last used %5%6\n")
                        .arg(str(w, "name"), str(w, "workspace"), str(w, "bytes"), str(w, "generation"),
                            str(w, "lastUsed"),
                            w.value(QStringLiteral("inUse")).toBool() ? QStringLiteral("  in use") : QString());
        }
    }

    // Everything the snapshot holds, members that name a secret removed first.
    text += section(QStringLiteral("Engine snapshot (GET /v1/snapshot)"));
    text += QString::fromUtf8(
        QJsonDocument(reportredaction::redactJson(snap).toObject()).toJson(QJsonDocument::Indented));
    return text;
}

QString settings(const Paths &paths)
{
    QString text = section(QStringLiteral("Settings"));
    text += field(QStringLiteral("File"), paths.settingsFile());
    if (!QFileInfo::exists(paths.settingsFile())) {
        text += QStringLiteral("(none: every setting has its default)\n");
    } else {
        QSettings file(paths.settingsFile(), QSettings::IniFormat);
        QStringList keys = file.allKeys();
        keys.sort();
        for (const QString &key : std::as_const(keys)) {
            const QString value = reportredaction::isSecretName(key.section(u'/', -1))
                ? reportredaction::Redacted.toString()
                : file.value(key).toStringList().join(QStringLiteral(", "));
            text += QStringLiteral("%1 = %2\n").arg(key, value);
        }
    }
    text += field(QStringLiteral("Hub in effect"),
        Settings(paths.settingsFile()).hubUrl().adjusted(QUrl::RemoveUserInfo).toString());

    text += section(QStringLiteral("Environment"));
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QStringList names;
    for (const QString &name : env.keys()) {
        if (name.startsWith(QLatin1String("ISOLATION_")) || name.startsWith(QLatin1String("XDG_"))
            || name == QLatin1String("DOCKER_HOST") || name == QLatin1String("QT_LOGGING_RULES")
            || name == QLatin1String("LANG") || name == QLatin1String("LC_ALL") || name == QLatin1String("LANGUAGE"))
            names << name;
    }
    names.sort();
    for (const QString &name : std::as_const(names))
        text += QStringLiteral("%1=%2\n").arg(
            name, reportredaction::isSecretName(name) ? reportredaction::Redacted.toString() : env.value(name));

    text += section(QStringLiteral("Paths"));
    text += field(QStringLiteral("Config"), paths.configDir());
    text += field(QStringLiteral("Data"), paths.dataDir());
    text += field(QStringLiteral("Cache"), paths.cacheDir());
    text += field(QStringLiteral("State (logs)"), paths.stateDir());
    text += field(QStringLiteral("LocalAPI socket"), paths.socketPath());
    return text;
}

// At most the last `count` lines of a file, read from its end in chunks: a 10 MiB log is not read
// whole for 2000 lines.
QList<QByteArray> lastLines(QFile &file, qsizetype count)
{
    constexpr qint64 chunk = 256 * 1024;
    QByteArray tail;
    qint64 from = file.size();
    while (from > 0 && tail.count('\n') <= count) {
        const qint64 start = std::max<qint64>(0, from - chunk);
        if (!file.seek(start))
            break;
        tail.prepend(file.read(from - start));
        from = start;
    }
    QList<QByteArray> lines = tail.split('\n');
    if (!lines.isEmpty() && lines.constLast().isEmpty())
        lines.removeLast();
    if (from > 0 && !lines.isEmpty())
        lines.removeFirst(); // cut by the chunk: the start of a line only
    return lines.mid(std::max<qsizetype>(0, lines.size() - count));
}

// The last `lines` lines of a log, from its rotated files as far back as needed, oldest first.
QString logTail(const QString &logFile, int lines)
{
    const QString name = QFileInfo(logFile).fileName();
    QString text = section(QStringLiteral("%1 (the last %2 lines)").arg(name).arg(lines));
    const QStringList files = logging::logFiles(logFile);
    if (files.isEmpty())
        return text + QStringLiteral("(no %1 in %2)\n").arg(name, QFileInfo(logFile).absolutePath());
    QList<QByteArray> kept; // newest last
    QStringList read;
    for (const QString &path : files) { // newest first
        if (kept.size() >= lines)
            break;
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            text += QStringLiteral("(%1 could not be read: %2)\n").arg(path, file.errorString());
            continue;
        }
        QList<QByteArray> fileLines = lastLines(file, lines - kept.size());
        const qsizetype wanted = std::min<qsizetype>(lines - kept.size(), fileLines.size());
        kept = fileLines.mid(fileLines.size() - wanted) + kept;
        read.prepend(QFileInfo(path).fileName());
    }
    text += QStringLiteral("(from %1)\n").arg(read.join(QStringLiteral(", ")));
    for (const QByteArray &line : std::as_const(kept))
        text += QString::fromUtf8(line) + QLatin1Char('\n');
    return text;
}

bool writePrivately(const QString &path, const QByteArray &bytes, QString *error)
{
    if (path == QLatin1String("-")) {
        out::line(QString::fromUtf8(bytes).chopped(bytes.endsWith('\n') ? 1 : 0));
        return true;
    }
    QFile file(path);
    const auto owner = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
    // Created 0600; an existing file is made 0600 before anything is written into it.
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate, owner) || !file.setPermissions(owner)
        || file.write(bytes) != bytes.size() || !file.flush()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    file.close();
    return true;
}

} // namespace

int runBugReport(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Write a report to attach to a bug report: versions (Isolation, Qt, libgit2, OpenSSL, Docker), "
                       "the engine's state when it runs (pairing, hub, sessions, runtime, warm cache), the settings, "
                       "the environment that steers the engine and the end of engine.log and tray.log. Tokens, "
                       "credentials, keys, Authorization headers and the user info of URLs are removed first "
                       "(docs/security.md, \"Bug reports\"); read it before you send it. Works whether or not "
                       "the engine runs. The file is readable by you only (0600)."));
    parser.addHelpOption();
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
        QStringLiteral("Write the report to FILE (- for standard output). Default: "
                       "isolation-bugreport-DATE-TIME.txt in the current directory."),
        QStringLiteral("file")});
    parser.addOption({QStringLiteral("lines"),
        QStringLiteral("How many of the last lines of engine.log (and its rotated files) to include. Default: %1.")
            .arg(DefaultLogLines),
        QStringLiteral("n"), QString::number(DefaultLogLines)});
    parser.addOption({QStringLiteral("json"),
        QStringLiteral("Print {\"path\", \"bytes\", \"engineReachable\"} instead of a sentence.")});
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    if (!parser.positionalArguments().isEmpty())
        return out::usage(QStringLiteral("bugreport takes no arguments"));
    bool linesOk = false;
    const int lines = parser.value(QStringLiteral("lines")).toInt(&linesOk);
    if (!linesOk || lines < 0)
        return out::usage(QStringLiteral("--lines wants a number of lines, 0 or more"));
    auto paths = Paths::resolve();
    if (!paths)
        return out::fail(paths.error().message);
    // The engine code this verb calls (Docker's client) says what it does in the log; on a terminal
    // that is noise around the one line this verb prints. Warnings stay.
    QLoggingCategory::setFilterRules(QStringLiteral("isolation.*.debug=false\nisolation.*.info=false"));

    const QDateTime now = QDateTime::currentDateTimeUtc();
    QString report = QStringLiteral("Isolation bug report\n");
    report += field(QStringLiteral("Written"), now.toString(Qt::ISODate));
    report += QStringLiteral("Tokens, credentials, keys and the user info of URLs were removed (docs/security.md, "
                             "\"Bug reports\").\n");
    report += versions();
    bool reachable = false;
    report += engineState(paths.value(), &reachable);
    report += settings(paths.value());
    report += logTail(paths.value().logFile(), lines);
    report += logTail(
        QFileInfo(paths.value().logFile()).absolutePath() + QStringLiteral("/tray.log"), std::min(lines, TrayLogLines));
    // The one gate: everything above leaves only through here.
    const QByteArray bytes = reportredaction::redactText(report).toUtf8();

    QString path = parser.value(QStringLiteral("output"));
    if (path.isEmpty())
        path = QStringLiteral("isolation-bugreport-%1.txt")
                   .arg(now.toLocalTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    if (path != QLatin1String("-"))
        path = QFileInfo(path).absoluteFilePath();
    QString error;
    if (!writePrivately(path, bytes, &error))
        return out::fail(error);
    if (path == QLatin1String("-"))
        return exitcode::Ok;
    if (parser.isSet(QStringLiteral("json"))) {
        out::json(QJsonObject {{QStringLiteral("path"), path}, {QStringLiteral("bytes"), bytes.size()},
            {QStringLiteral("engineReachable"), reachable}});
    } else {
        out::line(QStringLiteral("Bug report written to %1 (%2 bytes%3).")
                      .arg(path)
                      .arg(bytes.size())
                      .arg(reachable ? QString() : QStringLiteral("; the engine was not reachable")));
        out::line(QStringLiteral("Secrets were removed as docs/security.md says; read it before you send it."));
    }
    return exitcode::Ok;
}

} // namespace isolation
