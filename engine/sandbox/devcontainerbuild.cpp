#include "devcontainerbuild.h"

#include "jsonc.h"

#include "core/libarchive.h"
#include "runtime/dockerclient.h"
#include "secrets/launchsecrets.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrlQuery>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace isolation {

namespace {

la_ssize_t appendToBytes(archive *, void *payload, const void *buffer, size_t length)
{
    static_cast<QByteArray *>(payload)->append(static_cast<const char *>(buffer), qsizetype(length));
    return la_ssize_t(length);
}

// `path` (canonical or not) when it is `root` or inside it once links are resolved; empty otherwise.
QString inside(const QString &root, const QString &path)
{
    const QString canonical = QFileInfo(path).canonicalFilePath();
    if (canonical.isEmpty() || (canonical != root && !canonical.startsWith(root + QLatin1Char('/'))))
        return {};
    return canonical;
}

// A file's bytes without following a link in its last element (the walk checked the ones above).
Result<QByteArray, SandboxError> readFile(const QString &path, qint64 limit)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return SandboxError::refused(
            QStringLiteral("cannot read %1: %2").arg(path, QString::fromLocal8Bit(strerror(errno))));
    QFile file;
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return SandboxError::refused(QStringLiteral("cannot read %1").arg(path));
    }
    QByteArray bytes = file.read(limit + 1);
    if (bytes.size() > limit)
        return SandboxError::refused(
            QStringLiteral("the build context is larger than %1 MiB: narrow build.context or add a .dockerignore")
                .arg(limit / (1024 * 1024)));
    return bytes;
}

class TarWriter
{
public:
    explicit TarWriter(const libarchive::Api *lib)
        : m_lib(lib)
        , m_archive(lib->write_new())
    {
        m_ok = lib->write_set_format_pax_restricted(m_archive.get()) == ARCHIVE_OK
            && lib->write_set_bytes_in_last_block(m_archive.get(), 1) == ARCHIVE_OK
            && lib->write_open(m_archive.get(), &m_bytes, nullptr, appendToBytes, nullptr) == ARCHIVE_OK;
    }
    bool add(const QString &name, mode_t type, int perm, const QByteArray &data, const QByteArray &link = {})
    {
        libarchive::EntryPtr entry(m_lib->entry_new());
        const QByteArray path = name.toUtf8();
        m_lib->entry_set_pathname(entry.get(), path.constData());
        m_lib->entry_set_filetype(entry.get(), type);
        m_lib->entry_set_perm(entry.get(), perm);
        m_lib->entry_set_mtime(entry.get(), 0, 0); // the same bytes for the same files: the cache key
        m_lib->entry_set_uid(entry.get(), 0);
        m_lib->entry_set_gid(entry.get(), 0);
        if (type == AE_IFLNK)
            m_lib->entry_set_symlink(entry.get(), link.constData());
        m_lib->entry_set_size(entry.get(), type == AE_IFREG ? data.size() : 0);
        m_ok = m_ok && m_lib->write_header(m_archive.get(), entry.get()) == ARCHIVE_OK;
        if (m_ok && type == AE_IFREG && !data.isEmpty())
            m_ok = m_lib->write_data(m_archive.get(), data.constData(), size_t(data.size())) == data.size();
        return m_ok;
    }
    Result<QByteArray, SandboxError> finish()
    {
        if (!m_ok || m_lib->write_close(m_archive.get()) != ARCHIVE_OK)
            return SandboxError::failed(QStringLiteral("cannot write the build context: %1")
                                            .arg(QString::fromUtf8(m_lib->error_string(m_archive.get()))));
        return m_bytes;
    }

private:
    const libarchive::Api *m_lib;
    libarchive::WriterPtr m_archive;
    QByteArray m_bytes;
    bool m_ok = false;
};

struct Walk
{
    TarWriter *tar;
    QStringList ignore;
    qint64 bytes = 0;
};

Result<void, SandboxError> walk(Walk &w, const QString &folder, const QString &prefix)
{
    const QFileInfoList entries
        = QDir(folder).entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo &info : entries) {
        const QString name = prefix + info.fileName();
        if (name == QLatin1String(DevcontainerBuild::kDockerfileInTar)
            || (!w.ignore.isEmpty() && DevcontainerBuild::isIgnored(w.ignore, name)))
            continue;
        struct stat st;
        if (::lstat(QFile::encodeName(info.filePath()).constData(), &st) != 0)
            continue; // gone meanwhile
        const int perm = int(st.st_mode & 07777);
        if (S_ISLNK(st.st_mode)) {
            // Kept a link: Docker resolves it inside the context, never on this machine.
            QByteArray target(PATH_MAX, '\0');
            const ssize_t n = ::readlink(QFile::encodeName(info.filePath()).constData(), target.data(), target.size());
            if (n < 0)
                continue;
            target.truncate(n);
            if (!w.tar->add(name, AE_IFLNK, 0777, {}, target))
                break;
        } else if (S_ISDIR(st.st_mode)) {
            if (!w.tar->add(name, AE_IFDIR, perm, {}))
                break;
            if (auto r = walk(w, info.filePath(), name + QLatin1Char('/')); !r)
                return r;
        } else if (S_ISREG(st.st_mode)) {
            auto bytes = readFile(info.filePath(), DevcontainerBuild::kMaxContextBytes - w.bytes);
            if (!bytes)
                return bytes.error();
            w.bytes += bytes.value().size();
            if (!w.tar->add(name, AE_IFREG, perm, bytes.value()))
                break;
        } // sockets, FIFOs and devices stay out
    }
    return {};
}

QRegularExpression globToRegex(QString pattern)
{
    QString re;
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        const QChar c = pattern.at(i);
        if (c == QLatin1Char('*') && i + 1 < pattern.size() && pattern.at(i + 1) == QLatin1Char('*')) {
            re += QLatin1String(".*");
            ++i;
            if (i + 1 < pattern.size() && pattern.at(i + 1) == QLatin1Char('/'))
                ++i, re += QLatin1String("(?:/)?");
        } else if (c == QLatin1Char('*')) {
            re += QLatin1String("[^/]*");
        } else if (c == QLatin1Char('?')) {
            re += QLatin1String("[^/]");
        } else {
            re += QRegularExpression::escape(QString(c));
        }
    }
    return QRegularExpression(QRegularExpression::anchoredPattern(re));
}

QString cleanPattern(QString p)
{
    p = QDir::cleanPath(p.trimmed());
    while (p.startsWith(QLatin1Char('/')))
        p.remove(0, 1);
    return p;
}

// Names of the images a Dockerfile starts from (stages it names itself left out).
QStringList baseImages(const QByteArray &dockerfile)
{
    static const QRegularExpression from(QStringLiteral("^\\s*FROM\\s+(?:--\\S+\\s+)*(\\S+)(?:\\s+AS\\s+(\\S+))?"),
        QRegularExpression::CaseInsensitiveOption | QRegularExpression::MultilineOption);
    QStringList images;
    QStringList stages;
    for (auto it = from.globalMatch(QString::fromUtf8(dockerfile)); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QString name = m.captured(1);
        if (!stages.contains(name.toLower()) && name != QLatin1String("scratch"))
            images << name;
        if (!m.captured(2).isEmpty())
            stages << m.captured(2).toLower();
    }
    return images;
}

QString envName(QString option)
{
    // The features spec's rule: non-word characters become "_", leading digits too, upper case.
    option.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_]")), QStringLiteral("_"));
    option.replace(QRegularExpression(QStringLiteral("^[0-9_]+")), QStringLiteral("_"));
    return option.toUpper();
}

QString optionValue(const QJsonValue &v)
{
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return QString::number(v.toDouble());
    return v.toString();
}

Result<DevcontainerBuild::Feature, SandboxError> readFeature(
    const DevcontainerConfig::Feature &f, const QString &folder, const QString &root)
{
    const QString directory = inside(root, folder + QLatin1Char('/') + f.id.mid(2));
    if (directory.isEmpty() || !QFileInfo(directory).isDir())
        return SandboxError::refused(
            QStringLiteral("the feature %1 has no folder in the workspace (next to devcontainer.json)").arg(f.id));
    const QFileInfo install(directory + QStringLiteral("/install.sh"));
    if (install.isSymLink() || !install.isFile())
        return SandboxError::refused(QStringLiteral("the feature %1 has no install.sh").arg(f.id));
    auto bytes = readFile(directory + QStringLiteral("/devcontainer-feature.json"), DevcontainerConfig::kMaxBytes);
    if (!bytes)
        return SandboxError::refused(QStringLiteral("the feature %1 has no devcontainer-feature.json").arg(f.id));
    auto json = Jsonc::strip(bytes.value());
    const QJsonObject meta = json ? QJsonDocument::fromJson(json.value()).object() : QJsonObject();
    if (meta.isEmpty())
        return SandboxError::refused(
            QStringLiteral("the feature %1: devcontainer-feature.json is not a JSON object").arg(f.id));
    for (const char *key : {"privileged", "capAdd", "securityOpt", "mounts", "init", "entrypoint"}) {
        const QJsonValue v = meta.value(QLatin1String(key));
        if (!v.isUndefined() && !v.isNull() && v != QJsonValue(false))
            return SandboxError::refused(QStringLiteral("the feature %1 asks for \"%2\", which sandboxes do not have")
                                             .arg(f.id, QLatin1String(key)));
    }
    DevcontainerBuild::Feature feature {f.id, directory, {}, {}};
    const QJsonObject options = meta.value(QStringLiteral("options")).toObject();
    for (auto it = options.begin(); it != options.end(); ++it)
        feature.options.insert(envName(it.key()), optionValue(it.value().toObject().value(QStringLiteral("default"))));
    for (auto it = f.options.begin(); it != f.options.end(); ++it)
        feature.options.insert(envName(it.key()), optionValue(it.value()));
    const QJsonObject env = meta.value(QStringLiteral("containerEnv")).toObject();
    for (auto it = env.begin(); it != env.end(); ++it) {
        if (!LaunchSecrets::isValidName(it.key()) || !it.value().isString())
            return SandboxError::refused(
                QStringLiteral("the feature %1 has a bad containerEnv.%2").arg(f.id, it.key()));
        feature.containerEnv.insert(it.key(), it.value().toString());
    }
    return feature;
}

QString shellQuote(QString s)
{
    return QLatin1Char('\'') + s.replace(QLatin1Char('\''), QLatin1String("'\\''")) + QLatin1Char('\'');
}

SandboxError fromDocker(const DockerError &e, const QString &what)
{
    if (e.message.startsWith(QLatin1String("cancelled")))
        return SandboxError::cancelled(QStringLiteral("%1: cancelled").arg(what));
    const QString message = QStringLiteral("%1: %2").arg(what, e.message);
    return e.retryable() ? SandboxError::unavailable(message) : SandboxError::failed(message);
}

struct Stage
{
    QByteArray tar;
    QString hash;
    QUrlQuery query;
    QString description;
};

// Reused when Docker has the tag, else built; the tag either way.
Result<QString, SandboxError> buildStage(
    const DockerClient &docker, Stage stage, const DevcontainerBuild::Output &output)
{
    const QString tag = QStringLiteral("%1:%2").arg(QLatin1String(DevcontainerBuild::kRepository), stage.hash);
    if (docker.inspectImage(tag)) {
        output(QStringLiteral("Reusing %1 (%2, built before)").arg(tag, stage.description));
        return tag;
    }
    output(QStringLiteral("Building %1 (%2)").arg(tag, stage.description));
    stage.query.addQueryItem(QStringLiteral("t"), tag);
    stage.query.addQueryItem(QStringLiteral("dockerfile"), QLatin1String(DevcontainerBuild::kDockerfileInTar));
    stage.query.addQueryItem(QStringLiteral("labels"),
        QString::fromUtf8(QJsonDocument(QJsonObject {{QLatin1String(DevcontainerBuild::kLabel), stage.hash}})
                              .toJson(QJsonDocument::Compact)));
    // No network during a build: a workspace's Dockerfile reaches neither the LAN nor the internet
    // (docs/security.md); what it needs comes from the local images and the context.
    stage.query.addQueryItem(QStringLiteral("networkmode"), QStringLiteral("none"));
    stage.query.addQueryItem(QStringLiteral("rm"), QStringLiteral("1"));
    stage.query.addQueryItem(QStringLiteral("forcerm"), QStringLiteral("1"));
    QString partial;
    auto built = docker.buildImage(stage.query, stage.tar, [&](const QJsonObject &m) {
        partial += m.value(QStringLiteral("stream")).toString();
        if (m.contains(QStringLiteral("status")))
            partial += m.value(QStringLiteral("status")).toString() + QLatin1Char('\n');
        qsizetype end;
        while ((end = partial.indexOf(QLatin1Char('\n'))) >= 0) {
            const QString line = partial.left(end).trimmed();
            partial.remove(0, end + 1);
            if (!line.isEmpty())
                output(line.left(500));
        }
    });
    if (!built)
        return fromDocker(built.error(), QStringLiteral("the devcontainer image did not build"));
    if (!partial.trimmed().isEmpty())
        output(partial.trimmed().left(500));
    if (auto image = docker.inspectImage(tag); !image)
        return fromDocker(image.error(), QStringLiteral("the devcontainer image was built but is not tagged"));
    return tag;
}

QString hashOf(const QByteArray &tar, const QStringList &more)
{
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData("isolation-devcontainer/1\n");
    h.addData(tar);
    for (const QString &m : more)
        h.addData(QByteArray("\n" + m.toUtf8()));
    return QString::fromLatin1(h.result().toHex());
}

} // namespace

bool DevcontainerBuild::isIgnored(const QStringList &patterns, const QString &relativePath)
{
    // The path and each folder above it: a pattern matching a folder ignores what it holds.
    QStringList candidates;
    for (qsizetype at = relativePath.indexOf(QLatin1Char('/')); at >= 0;
         at = relativePath.indexOf(QLatin1Char('/'), at + 1))
        candidates << relativePath.left(at);
    candidates << relativePath;
    bool ignored = false;
    for (const QString &raw : patterns) {
        const bool include = raw.startsWith(QLatin1Char('!'));
        const QString pattern = cleanPattern(include ? raw.mid(1) : raw);
        if (pattern.isEmpty() || pattern == QLatin1String("."))
            continue;
        const QRegularExpression re = globToRegex(pattern);
        for (const QString &c : std::as_const(candidates)) {
            if (re.match(c).hasMatch()) {
                ignored = !include;
                break;
            }
        }
    }
    return ignored;
}

Result<QByteArray, SandboxError> DevcontainerBuild::tarOf(
    const QString &folder, const QList<std::pair<QString, QByteArray>> &extra, bool ignore)
{
    QString unloadable;
    const libarchive::Api *lib = libarchive::load(&unloadable);
    if (!lib)
        return SandboxError::failed(unloadable);
    TarWriter tar(lib);
    Walk w {&tar, {}, 0};
    if (ignore) {
        const QFileInfo dockerignore(folder + QStringLiteral("/.dockerignore"));
        if (dockerignore.isFile() && !dockerignore.isSymLink()) {
            auto bytes = readFile(dockerignore.filePath(), 1024 * 1024);
            if (!bytes)
                return bytes.error();
            for (const QByteArray &line : bytes.value().split('\n')) {
                const QString pattern = QString::fromUtf8(line).trimmed();
                if (!pattern.isEmpty() && !pattern.startsWith(QLatin1Char('#')))
                    w.ignore << pattern;
            }
        }
    }
    if (auto r = walk(w, folder, {}); !r)
        return r.error();
    for (const auto &[name, bytes] : extra)
        tar.add(name, AE_IFREG, 0644, bytes);
    return tar.finish();
}

QByteArray DevcontainerBuild::featuresDockerfile(const QString &baseImageId, const QString &baseUser) const
{
    const QString user = baseUser.isEmpty() ? QStringLiteral("root") : baseUser;
    QStringList lines {QStringLiteral("FROM ") + baseImageId, QStringLiteral("USER root")};
    for (qsizetype i = 0; i < features.size(); ++i) {
        const Feature &f = features.at(i);
        const QString at = QStringLiteral("/tmp/isolation-features/%1").arg(i);
        lines << QStringLiteral("COPY features/%1/ %2/").arg(i).arg(at);
        // The features spec: options as upper-cased variables, the users as _REMOTE_USER and
        // _CONTAINER_USER. The exec form with a JSON array: Qt's JSON escapes, no Dockerfile quoting.
        QStringList env {QStringLiteral("_CONTAINER_USER=") + shellQuote(user),
            QStringLiteral("_REMOTE_USER=") + shellQuote(remoteUser.isEmpty() ? user : remoteUser)};
        for (auto it = f.options.begin(); it != f.options.end(); ++it)
            env << it.key() + QLatin1Char('=') + shellQuote(it.value());
        const QString script
            = QStringLiteral("cd %1 && chmod +x install.sh && env %2 ./install.sh").arg(at, env.join(QLatin1Char(' ')));
        const QJsonArray argv {QStringLiteral("/bin/sh"), QStringLiteral("-c"), script};
        lines << QStringLiteral("RUN ") + QString::fromUtf8(QJsonDocument(argv).toJson(QJsonDocument::Compact));
        for (auto it = f.containerEnv.begin(); it != f.containerEnv.end(); ++it) {
            QString value = it.value();
            value.replace(QLatin1Char('\\'), QLatin1String("\\\\"))
                .replace(QLatin1Char('"'), QLatin1String("\\\""))
                .replace(QLatin1Char('$'), QLatin1String("\\$"))
                .replace(QLatin1Char('\n'), QLatin1String("\\n"));
            lines << QStringLiteral("ENV %1=\"%2\"").arg(it.key(), value);
        }
    }
    lines << QStringLiteral("RUN [\"rm\", \"-rf\", \"/tmp/isolation-features\"]") << QStringLiteral("USER ") + user;
    return lines.join(QLatin1Char('\n')).toUtf8() + '\n';
}

Result<std::optional<DevcontainerBuild>, SandboxError> DevcontainerBuild::plan(
    const DevcontainerConfig &config, const QString &worktree, const QString &defaultImage)
{
    if (!config.build && config.features.isEmpty())
        return std::optional<DevcontainerBuild> {};
    DevcontainerBuild b;
    b.worktree = QFileInfo(worktree).canonicalFilePath();
    if (b.worktree.isEmpty())
        return SandboxError::refused(QStringLiteral("the worktree %1 does not exist").arg(worktree));
    const QString folder = config.path.isEmpty() ? b.worktree : QFileInfo(config.path).path();
    if (config.build) {
        b.dockerfile = inside(b.worktree, folder + QLatin1Char('/') + config.build->dockerfile);
        const QFileInfo file(b.dockerfile);
        if (b.dockerfile.isEmpty() || !file.isFile())
            return SandboxError::refused(
                QStringLiteral("devcontainer.json: the Dockerfile %1 is not a file in the workspace")
                    .arg(config.build->dockerfile));
        b.context = inside(b.worktree, folder + QLatin1Char('/') + config.build->context);
        if (b.context.isEmpty() || !QFileInfo(b.context).isDir())
            return SandboxError::refused(
                QStringLiteral("devcontainer.json: the build context %1 is not a folder in the workspace")
                    .arg(config.build->context));
        b.args = config.build->args;
        b.target = config.build->target;
    } else {
        b.baseImage = config.image.isEmpty() ? defaultImage : config.image;
        if (b.baseImage.isEmpty())
            return SandboxError::refused(QStringLiteral("features need an image to go onto: name one with \"image\""));
    }
    for (const DevcontainerConfig::Feature &f : config.features) {
        auto feature = readFeature(f, folder, b.worktree);
        if (!feature)
            return SandboxError::refused(QStringLiteral("devcontainer.json: ") + feature.error().message);
        b.features << feature.value();
    }
    b.remoteUser = config.remoteUser;
    return std::optional<DevcontainerBuild>(std::move(b));
}

Result<QString, SandboxError> DevcontainerBuild::run(const DockerClient &docker, const Output &output) const
{
    QString base = baseImage;
    if (!dockerfile.isEmpty()) {
        auto bytes = readFile(dockerfile, DevcontainerConfig::kMaxBytes);
        if (!bytes)
            return bytes.error();
        auto tar = tarOf(context, {{QLatin1String(kDockerfileInTar), bytes.value()}}, true);
        if (!tar)
            return tar.error();
        // The key: the context with the Dockerfile (as tarred), the args, the target, and what each
        // image named by FROM is now (a rebuilt base gives a new image).
        QStringList more;
        for (auto it = args.begin(); it != args.end(); ++it)
            more << QStringLiteral("arg %1=%2").arg(it.key(), it.value());
        more << QStringLiteral("target ") + target;
        for (const QString &from : baseImages(bytes.value())) {
            auto image = docker.inspectImage(from);
            more << QStringLiteral("from %1 %2")
                        .arg(from, image ? image.value().value(QStringLiteral("Id")).toString() : QStringLiteral("-"));
        }
        Stage stage {tar.value(), hashOf(tar.value(), more), {}, QStringLiteral("the workspace's Dockerfile")};
        if (!args.isEmpty()) {
            QJsonObject buildArgs;
            for (auto it = args.begin(); it != args.end(); ++it)
                buildArgs.insert(it.key(), it.value());
            stage.query.addQueryItem(QStringLiteral("buildargs"),
                QString::fromUtf8(QJsonDocument(buildArgs).toJson(QJsonDocument::Compact)));
        }
        if (!target.isEmpty())
            stage.query.addQueryItem(QStringLiteral("target"), target);
        auto tag = buildStage(docker, std::move(stage), output);
        if (!tag)
            return tag;
        base = tag.value();
    }
    if (features.isEmpty())
        return base;

    auto image = docker.inspectImage(base);
    if (!image && image.error().code == DockerError::Code::NotFound && dockerfile.isEmpty()) {
        // `image` as the runtime would have it: pulled when this machine does not have it yet.
        output(QStringLiteral("Pulling %1").arg(base));
        // The figures as lines of the build's output (the Building state's reason): at most 4 a
        // second, and at once when a phase starts or ends.
        auto progress = PullProgress::throttled(
            [&](const PullProgress &p) { output(QStringLiteral("Pulling %1: %2").arg(base, p.describe())); });
        if (auto pulled = docker.pullImage(base, progress); !pulled)
            return fromDocker(pulled.error(), QStringLiteral("the features have no image to go onto"));
        image = docker.inspectImage(base);
    }
    if (!image)
        return fromDocker(image.error(), QStringLiteral("the features have no image to go onto"));
    const QString id = image.value().value(QStringLiteral("Id")).toString();
    const QString user
        = image.value().value(QStringLiteral("Config")).toObject().value(QStringLiteral("User")).toString();
    // The tar: the generated Dockerfile and each feature's folder as features/N/, modes kept.
    QString unloadable;
    const libarchive::Api *lib = libarchive::load(&unloadable);
    if (!lib)
        return SandboxError::failed(unloadable);
    TarWriter writer(lib);
    writer.add(QLatin1String(kDockerfileInTar), AE_IFREG, 0644, featuresDockerfile(id, user));
    writer.add(QStringLiteral("features"), AE_IFDIR, 0755, {});
    Walk w {&writer, {}, 0};
    QStringList names;
    for (qsizetype i = 0; i < features.size(); ++i) {
        names << features.at(i).id;
        const QString prefix = QStringLiteral("features/%1").arg(i);
        writer.add(prefix, AE_IFDIR, 0755, {});
        if (auto r = walk(w, features.at(i).directory, prefix + QLatin1Char('/')); !r)
            return r.error();
    }
    auto tar = writer.finish();
    if (!tar)
        return tar.error();
    Stage stage {tar.value(), hashOf(tar.value(), {}), {},
        QStringLiteral("features %1 on %2").arg(names.join(QStringLiteral(", ")), base)};
    return buildStage(docker, std::move(stage), output);
}

} // namespace isolation
