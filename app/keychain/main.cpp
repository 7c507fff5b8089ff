// isolation-keychain: one desktop keychain operation for the engine (engine/credentials/keychainhelper.h),
// in a process of its own so that QtKeychain and the libraries it loads leave with it.
//   isolation-keychain read|write|delete SERVICE KEY
// read prints the entry on standard output; write stores what it reads on standard input. The exit
// status is a KeychainExit (engine/credentials/keychainexit.h); on failure standard error says why.
#include "core/processhardening.h"
#include "credentials/keychainexit.h"

#include <QCoreApplication>
#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusMetaType>
#include <QDBusObjectPath>
#include <QMap>
#include <QStringList>
#include <QTimer>

#include <qt6keychain/keychain.h>

#include <cstdio>
#include <memory>

using isolation::KeychainExit;

namespace {

KeychainExit exitFor(QKeychain::Error error)
{
    switch (error) {
    case QKeychain::NoError:
        return KeychainExit::Ok;
    case QKeychain::EntryNotFound:
        return KeychainExit::NotFound;
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
        return KeychainExit::Denied;
    case QKeychain::CouldNotDeleteEntry:
        return KeychainExit::CouldNotDelete;
    default: // no backend, not implemented, any other error
        return KeychainExit::Unavailable;
    }
}

// Reading an entry that sits in a locked Secret Service collection, when no unlock prompt can be
// shown or the person dismisses it, ends in EntryNotFound: the same as an entry never written, so
// the engine would take a paired computer for a new one and offer to pair it again. The Secret
// Service tells the two apart: SearchItems answers the locked matches separately. QtKeychain's
// libsecret backend files an entry under its schema with the attributes server=SERVICE and
// user=KEY (seen with secret-tool search). False where there is no Secret Service (KWallet).
bool inLockedCollection(const QString &service, const QString &key)
{
    using Attributes = QMap<QString, QString>;
    qDBusRegisterMetaType<Attributes>();
    qDBusRegisterMetaType<QList<QDBusObjectPath>>();
    QDBusMessage call = QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.secrets"),
        QStringLiteral("/org/freedesktop/secrets"), QStringLiteral("org.freedesktop.Secret.Service"),
        QStringLiteral("SearchItems"));
    call << QVariant::fromValue(Attributes {{QStringLiteral("server"), service}, {QStringLiteral("user"), key}});
    const QDBusMessage reply = QDBusConnection::sessionBus().call(call, QDBus::Block, 5000);
    if (reply.type() != QDBusMessage::ReplyMessage || reply.arguments().size() != 2)
        return false;
    return !qdbus_cast<QList<QDBusObjectPath>>(reply.arguments().at(1)).isEmpty();
}

QByteArray readAll(std::FILE *in)
{
    QByteArray data;
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, in)) > 0)
        data.append(buffer, qsizetype(n));
    return data;
}

} // namespace

int main(int argc, char *argv[])
{
    // It reads or writes the server credential and member key: no core file, no ptrace.
    if (auto hardened = isolation::hardenProcess(); !hardened)
        std::fprintf(stderr, "isolation-keychain: warning: %s\n", qPrintable(hardened.error().message));
    // The Secret Service backend (libsecret) answers through GLib's main context, which only
    // Qt's GLib event dispatcher runs: with QT_NO_GLIB every job would wait forever.
    qunsetenv("QT_NO_GLIB");
    QCoreApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    const QString verb = args.value(1);
    std::unique_ptr<QKeychain::Job> job;
    if (args.size() != 4) {
        // falls through to the usage message
    } else if (verb == QLatin1String("read")) {
        job = std::make_unique<QKeychain::ReadPasswordJob>(args[2]);
    } else if (verb == QLatin1String("write")) {
        auto write = std::make_unique<QKeychain::WritePasswordJob>(args[2]);
        QByteArray secret = readAll(stdin);
        write->setBinaryData(secret);
        secret.fill('\0');
        job = std::move(write);
    } else if (verb == QLatin1String("delete")) {
        job = std::make_unique<QKeychain::DeletePasswordJob>(args[2]);
    }
    if (!job) {
        std::fputs(
            "usage: isolation-keychain read|write|delete SERVICE KEY (for the engine, not for people)\n", stderr);
        return int(KeychainExit::Usage);
    }
    job->setKey(args[3]);
    job->setInsecureFallback(false); // the desktop keychain or nothing, never a plaintext file
    job->setAutoDelete(false);
    QObject::connect(job.get(), &QKeychain::Job::finished, &app, [&args](QKeychain::Job *done) {
        KeychainExit exit = exitFor(done->error());
        if (exit == KeychainExit::NotFound && qobject_cast<QKeychain::ReadPasswordJob *>(done)
            && inLockedCollection(args[2], args[3])) {
            exit = KeychainExit::Locked;
            std::fputs("the entry is in a locked keychain collection\n", stderr);
        } else if (exit != KeychainExit::Ok) {
            std::fprintf(stderr, "%s\n", qUtf8Printable(done->errorString()));
        } else if (auto *read = qobject_cast<QKeychain::ReadPasswordJob *>(done)) {
            QByteArray data = read->binaryData();
            if (std::fwrite(data.constData(), 1, size_t(data.size()), stdout) != size_t(data.size())
                || std::fflush(stdout) != 0)
                exit = KeychainExit::Unavailable;
            data.fill('\0');
        }
        QCoreApplication::exit(int(exit));
    });
    // Started from the event loop, so that its end always finds the loop running.
    QTimer::singleShot(0, job.get(), &QKeychain::Job::start);
    return QCoreApplication::exec();
}
