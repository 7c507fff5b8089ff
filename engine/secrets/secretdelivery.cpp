#include "secretdelivery.h"

#include "runtime/execdclient.h"
#include "secretserror.h"
#include "secretvault.h"

#include <QPointer>
#include <QRegularExpression>
#include <QTimer>

#include <memory>
#include <vector>

namespace isolation {

namespace {

Error fromExecd(const ExecdError &e, const QString &what)
{
    const QString message = QStringLiteral("%1: %2").arg(what, e.message);
    return e.retryable() ? Error::unavailable(message) : Error::failed(message);
}

// The uploads, one after the other; each value is copied out of its SecureBytes only for its request.
struct Uploads
{
    QPointer<ExecdClient> execd;
    QString directory;
    std::vector<std::pair<QString, SecureBytes>> values;
    std::function<void(Status)> done;
    size_t next = 0;

    static void step(const std::shared_ptr<Uploads> &self)
    {
        if (!self->execd) {
            self->done(Error::failed(QStringLiteral("execd went away while secrets were delivered")));
            return;
        }
        if (self->next == self->values.size()) {
            qCInfo(lcSecrets).noquote()
                << QStringLiteral("%1 secrets delivered to %2").arg(self->values.size()).arg(self->directory);
            self->done({});
            return;
        }
        const auto &[name, value] = self->values[self->next++];
        self->execd->upload(self->directory + QLatin1Char('/') + name, value.toByteArray(), 400,
            [self, name = name](Result<bool, ExecdError> r) {
                if (!r.ok()) {
                    self->done(fromExecd(r.error(), QStringLiteral("cannot deliver secret %1").arg(name)));
                    return;
                }
                step(self);
            });
    }
};

} // namespace

bool SecretDelivery::isValidDirectory(const QString &directory)
{
    static const QRegularExpression pattern(QStringLiteral("^(/[A-Za-z0-9._-]+)+$"));
    return pattern.match(directory).hasMatch() && !directory.contains(QLatin1String("/.."))
        && directory.count('/') >= 2;
}

void SecretDelivery::deliverFiles(
    ExecdClient *execd, const SecretVault &vault, const QString &directory, std::function<void(Status)> done)
{
    if (!isValidDirectory(directory)) {
        QTimer::singleShot(0, execd, [done, directory] {
            done(Error::invalidInput(QStringLiteral("%1 is not a directory secrets can go to").arg(directory)));
        });
        return;
    }
    auto uploads = std::make_shared<Uploads>();
    uploads->execd = execd;
    uploads->directory = directory;
    uploads->done = std::move(done);
    for (const QString &name : vault.names())
        uploads->values.emplace_back(name, *vault.value(name));

    // Only into tmpfs: the parent directory's file system is checked inside the sandbox first.
    const QString parent = directory.section(QLatin1Char('/'), 0, -2);
    const QString prepare = QStringLiteral("fs=$(stat -f -c %T '%1' 2>/dev/null); "
                                           "if [ \"$fs\" != tmpfs ]; then echo \"${fs:-unknown}\"; exit 3; fi; "
                                           "rm -rf '%2' && mkdir -m 700 '%2'")
                                .arg(parent, directory);
    execd->runCommand(prepare, {}, [uploads, parent](Result<CommandOutput, ExecdError> r) {
        if (!r.ok()) {
            uploads->done(fromExecd(r.error(), QStringLiteral("cannot prepare the secrets directory")));
            return;
        }
        if (r.value().exitCode == 3) {
            uploads->done(Error::failed(QStringLiteral("refusing to write secrets to %1: it is on %2, not tmpfs")
                                            .arg(parent, QString::fromUtf8(r.value().stdOut.trimmed()))));
            return;
        }
        if (r.value().exitCode != 0) {
            uploads->done(Error::failed(QStringLiteral("cannot make the secrets directory: %1")
                                            .arg(QString::fromUtf8(r.value().stdErr.trimmed()))));
            return;
        }
        Uploads::step(uploads);
    });
}

} // namespace isolation
