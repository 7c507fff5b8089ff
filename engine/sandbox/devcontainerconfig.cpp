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

// A path as devcontainer.json writes it: relative (to its folder; ".." is how a context reaches the
// worktree's root). DevcontainerBuild::plan keeps it inside the worktree.
bool isRelativePath(const QString &path)
{
    return !path.isEmpty() && !path.startsWith(QLatin1Char('/')) && !path.contains(QChar(0)) && path.size() <= 1024;
}

Result<std::optional<DevcontainerConfig::Build>, SandboxError> parseBuild(const QJsonObject &root)
{
    QJsonObject build;
    if (root.contains(QStringLiteral("build"))) {
        if (!root.value(QStringLiteral("build")).isObject())
            return SandboxError::refused(QStringLiteral("build is not an object"));
        if (root.contains(QStringLiteral("dockerFile")) || root.contains(QStringLiteral("context")))
            return SandboxError::refused(QStringLiteral("build and the legacy dockerFile/context are both given"));
        build = root.value(QStringLiteral("build")).toObject();
    } else if (root.contains(QStringLiteral("dockerFile"))) {
        // The legacy form: dockerFile and context at the top.
        build.insert(QStringLiteral("dockerfile"), root.value(QStringLiteral("dockerFile")));
        if (root.contains(QStringLiteral("context")))
            build.insert(QStringLiteral("context"), root.value(QStringLiteral("context")));
    } else if (root.contains(QStringLiteral("context"))) {
        return SandboxError::refused(QStringLiteral("context is given without a dockerFile"));
    } else {
        return std::optional<DevcontainerConfig::Build> {};
    }
    static const QStringList known {QStringLiteral("dockerfile"), QStringLiteral("dockerFile"),
        QStringLiteral("context"), QStringLiteral("args"), QStringLiteral("target")};
    for (auto it = build.begin(); it != build.end(); ++it) {
        if (!known.contains(it.key()))
            return SandboxError::refused(
                QStringLiteral("build.%1 is not supported (only dockerfile, context, args and target are)")
                    .arg(it.key().left(64)));
    }
    DevcontainerConfig::Build b;
    const QJsonValue dockerfile = build.contains(QStringLiteral("dockerfile"))
        ? build.value(QStringLiteral("dockerfile"))
        : build.value(QStringLiteral("dockerFile"));
    if (!dockerfile.isString() || !isRelativePath(dockerfile.toString()))
        return SandboxError::refused(QStringLiteral("build.dockerfile must name a file by a relative path"));
    b.dockerfile = dockerfile.toString();
    const QJsonValue context = build.value(QStringLiteral("context"));
    if (!context.isUndefined() && (!context.isString() || !isRelativePath(context.toString())))
        return SandboxError::refused(QStringLiteral("build.context must name a folder by a relative path"));
    b.context = context.isString() ? context.toString() : QStringLiteral(".");
    const QJsonValue args = build.value(QStringLiteral("args"));
    if (!args.isUndefined() && !args.isObject())
        return SandboxError::refused(QStringLiteral("build.args is not an object"));
    const QJsonObject argObject = args.toObject();
    for (auto it = argObject.begin(); it != argObject.end(); ++it) {
        if (!LaunchSecrets::isValidName(it.key()) || !it.value().isString())
            return SandboxError::refused(
                QStringLiteral("build.args.%1 is not a name with a string value").arg(it.key().left(64)));
        b.args.insert(it.key(), it.value().toString());
    }
    const QJsonValue target = build.value(QStringLiteral("target"));
    static const QRegularExpression stage(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"));
    if (!target.isUndefined() && !(target.isString() && stage.match(target.toString()).hasMatch()))
        return SandboxError::refused(QStringLiteral("build.target is not a stage name"));
    b.target = target.toString();
    return std::optional<DevcontainerConfig::Build>(b);
}

Result<QList<DevcontainerConfig::Feature>, SandboxError> parseFeatures(const QJsonValue &value)
{
    if (value.isUndefined())
        return QList<DevcontainerConfig::Feature> {};
    if (!value.isObject())
        return SandboxError::refused(QStringLiteral("features is not an object"));
    static const QRegularExpression local(QStringLiteral("^\\./[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"));
    QList<DevcontainerConfig::Feature> features;
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!local.match(it.key()).hasMatch())
            return SandboxError::refused(
                QStringLiteral("the feature \"%1\" is not applied: only local features (\"./name\", a folder next "
                               "to devcontainer.json) can be installed without a registry")
                    .arg(it.key().left(200)));
        QJsonObject options;
        if (it.value().isObject())
            options = it.value().toObject();
        else if (it.value().isString()) // the short form: the feature's "version" option
            options.insert(QStringLiteral("version"), it.value());
        else if (!it.value().isBool() || !it.value().toBool())
            return SandboxError::refused(QStringLiteral("features.%1 is not an object of options").arg(it.key()));
        for (auto o = options.begin(); o != options.end(); ++o) {
            if (!o.value().isString() && !o.value().isBool() && !o.value().isDouble())
                return SandboxError::refused(
                    QStringLiteral("features.%1.%2 is not a string, a boolean or a number").arg(it.key(), o.key()));
        }
        features.append({it.key(), options});
    }
    return features;
}

} // namespace

const QStringList &DevcontainerConfig::honouredKeys()
{
    static const QStringList keys {QStringLiteral("image"), QStringLiteral("build"), QStringLiteral("dockerFile"),
        QStringLiteral("context"), QStringLiteral("features"), QStringLiteral("containerEnv"),
        QStringLiteral("postCreateCommand"), QStringLiteral("remoteUser")};
    return keys;
}

const QStringList &DevcontainerConfig::ignoredKeys()
{
    // Descriptive, or for an editor: nothing of the sandbox depends on them.
    static const QStringList keys {QStringLiteral("$schema"), QStringLiteral("name"), QStringLiteral("customizations"),
        QStringLiteral("forwardPorts"), QStringLiteral("portsAttributes"), QStringLiteral("otherPortsAttributes"),
        QStringLiteral("hostRequirements"), QStringLiteral("shutdownAction"), QStringLiteral("overrideCommand"),
        QStringLiteral("waitFor"), QStringLiteral("userEnvProbe"), QStringLiteral("updateRemoteUserUID")};
    return keys;
}

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

    for (auto it = root.begin(); it != root.end(); ++it) {
        if (!honouredKeys().contains(it.key()) && !ignoredKeys().contains(it.key()))
            return SandboxError::refused(
                QStringLiteral("devcontainer.json: \"%1\" is not supported by Isolation (see the user guide, "
                               "\"devcontainer.json\"); remove it to launch")
                    .arg(it.key().left(64)));
    }

    const QJsonValue image = root.value(QStringLiteral("image"));
    if (!image.isUndefined()) {
        if (!image.isString() || !isValidImage(image.toString()))
            return SandboxError::refused(QStringLiteral("devcontainer.json: image is not an image reference"));
        config.image = image.toString();
    }
    auto build = parseBuild(root);
    if (!build)
        return SandboxError::refused(QStringLiteral("devcontainer.json: ") + build.error().message);
    config.build = build.value();
    if (config.build && !config.image.isEmpty())
        return SandboxError::refused(QStringLiteral("devcontainer.json: name an image or build one, not both"));
    auto features = parseFeatures(root.value(QStringLiteral("features")));
    if (!features)
        return SandboxError::refused(QStringLiteral("devcontainer.json: ") + features.error().message);
    config.features = features.value();

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
    else if (!user.isUndefined())
        return SandboxError::refused(QStringLiteral("devcontainer.json: remoteUser is not a string"));
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
