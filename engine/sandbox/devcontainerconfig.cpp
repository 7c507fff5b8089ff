#include "devcontainerconfig.h"

#include "jsonc.h"
#include "secrets/launchsecrets.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace isolation {

namespace {

Result<QString, SandboxError> command(const QJsonValue &v, const QString &where)
{
    if (v.isString())
        return v.toString();
    if (v.isArray()) {
        QStringList argv;
        for (const QJsonValue &arg : v.toArray()) {
            if (!arg.isString())
                return SandboxError::refused(QStringLiteral("%1 holds an element that is not a string").arg(where));
            argv << arg.toString();
        }
        if (argv.isEmpty())
            return SandboxError::refused(QStringLiteral("%1 is an empty array").arg(where));
        return DevcontainerConfig::quoteArgv(argv);
    }
    return SandboxError::refused(QStringLiteral("%1 is neither a string nor an array").arg(where));
}

} // namespace

QString DevcontainerConfig::quoteArgv(const QStringList &argv)
{
    QStringList quoted;
    for (QString arg : argv)
        quoted << QLatin1Char('\'') + arg.replace(QLatin1Char('\''), QLatin1String("'\\''")) + QLatin1Char('\'');
    return QStringLiteral("exec ") + quoted.join(QLatin1Char(' '));
}

bool DevcontainerConfig::isValidImage(const QString &image)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$"));
    return pattern.match(image).hasMatch();
}

Result<DevcontainerConfig, SandboxError> DevcontainerConfig::parse(QByteArrayView jsonc)
{
    if (jsonc.size() > kMaxBytes)
        return SandboxError::refused(QStringLiteral("devcontainer.json is larger than %1 bytes").arg(kMaxBytes));
    auto json = Jsonc::strip(jsonc);
    if (!json)
        return SandboxError::refused(QStringLiteral("devcontainer.json: %1").arg(json.error().message));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json.value(), &error);
    if (!doc.isObject()) {
        return SandboxError::refused(error.error == QJsonParseError::NoError
                ? QStringLiteral("devcontainer.json is not a JSON object")
                : QStringLiteral("devcontainer.json: %1 at offset %2").arg(error.errorString()).arg(error.offset));
    }
    const QJsonObject root = doc.object();
    DevcontainerConfig config;

    const QJsonValue image = root.value(QStringLiteral("image"));
    if (!image.isUndefined()) {
        if (!image.isString() || !isValidImage(image.toString()))
            return SandboxError::refused(QStringLiteral("devcontainer.json: image is not an image reference"));
        config.image = image.toString();
    } else {
        for (const char *build : {"build", "dockerFile", "dockerfile", "dockerComposeFile"}) {
            if (root.contains(QLatin1String(build))) {
                return SandboxError::refused(
                    QStringLiteral("devcontainer.json: \"%1\" asks for an image to be built, which the engine "
                                   "does not do; name an image with \"image\"")
                        .arg(QLatin1String(build)));
            }
        }
    }

    const QJsonValue env = root.value(QStringLiteral("containerEnv"));
    if (!env.isUndefined() && !env.isObject())
        return SandboxError::refused(QStringLiteral("devcontainer.json: containerEnv is not an object"));
    const QJsonObject envs = env.toObject();
    for (auto it = envs.begin(); it != envs.end(); ++it) {
        if (!LaunchSecrets::isValidName(it.key()))
            return SandboxError::refused(
                QStringLiteral("devcontainer.json: containerEnv has a bad name %1").arg(it.key().left(64)));
        if (!it.value().isString())
            return SandboxError::refused(
                QStringLiteral("devcontainer.json: containerEnv.%1 is not a string").arg(it.key()));
        config.containerEnv.insert(it.key(), it.value().toString());
    }

    const QJsonValue post = root.value(QStringLiteral("postCreateCommand"));
    if (post.isObject()) {
        const QJsonObject commands = post.toObject();
        for (const QString &key : commands.keys()) { // keys() is sorted
            auto c = command(commands.value(key), QStringLiteral("postCreateCommand.") + key);
            if (!c)
                return SandboxError::refused(QStringLiteral("devcontainer.json: ") + c.error().message);
            config.postCreateCommands << c.value();
        }
    } else if (!post.isUndefined() && !post.isNull()) {
        auto c = command(post, QStringLiteral("postCreateCommand"));
        if (!c)
            return SandboxError::refused(QStringLiteral("devcontainer.json: ") + c.error().message);
        if (!c.value().trimmed().isEmpty())
            config.postCreateCommands << c.value();
    }

    const QJsonValue user = root.value(QStringLiteral("remoteUser"));
    if (user.isString())
        config.remoteUser = user.toString();
    return config;
}

Result<std::optional<DevcontainerConfig>, SandboxError> DevcontainerConfig::load(const QString &worktree)
{
    const QString root = QFileInfo(worktree).canonicalFilePath();
    if (root.isEmpty())
        return SandboxError::refused(QStringLiteral("the worktree %1 does not exist").arg(worktree));
    for (const char *relative : {"/.devcontainer/devcontainer.json", "/.devcontainer.json"}) {
        const QString path = root + QLatin1String(relative);
        const QFileInfo info(path);
        if (!info.exists() && !info.isSymLink())
            continue;
        // The workspace is the agent's to write: never follow a link, nor read outside it.
        if (info.isSymLink() || !info.isFile() || info.canonicalFilePath() != path)
            return SandboxError::refused(QStringLiteral("%1 is not a regular file in the worktree").arg(path));
        if (info.size() > kMaxBytes)
            return SandboxError::refused(QStringLiteral("%1 is larger than %2 bytes").arg(path).arg(kMaxBytes));
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return SandboxError::refused(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
        auto config = parse(file.read(kMaxBytes + 1));
        if (!config)
            return config.error();
        config.value().path = path;
        return std::optional<DevcontainerConfig>(std::move(config.value()));
    }
    return std::optional<DevcontainerConfig> {};
}

} // namespace isolation
