// isolation-server pair / unpair.
#include "command.h"
#include "exitcodes.h"
#include "output.h"
#include "qrmatrix.h"

#include "core/huburl.h"
#include "core/signalwatcher.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QThread>
#include <QTimer>

#include <csignal>

namespace isolation {

namespace {

// Polls the engine's pairing until the member approves or denies it, it expires or fails, or
// Ctrl-C cancels it (in the engine too, instead of leaving it polling); the exit code.
int waitForApproval(const LocalApiClient &api)
{
    SignalWatcher signals;
    bool interrupted = false;
    QObject::connect(&signals, &SignalWatcher::terminationRequested, qApp, [&interrupted] { interrupted = true; });
    for (;;) {
        QEventLoop loop;
        QTimer::singleShot(500, &loop, &QEventLoop::quit);
        loop.exec();
        if (interrupted) {
            if (auto cancelled = api.call("DELETE", QStringLiteral("/v1/pair")); !cancelled)
                out::error(cancelled.error().message);
            out::error(QStringLiteral("pairing cancelled"));
            return 130;
        }
        auto poll = api.call("GET", QStringLiteral("/v1/pair"));
        if (!poll)
            return out::localApiFailure(poll.error());
        const QJsonObject s = poll.value();
        const QString state = s.value(QStringLiteral("state")).toString();
        if (state == QLatin1String("approved") && s.value(QStringLiteral("paired")).toBool()) {
            auto status = api.call("GET", QStringLiteral("/v1/status"));
            out::line(QStringLiteral("Paired: this computer is %1 on %2")
                          .arg(s.value(QStringLiteral("serverId")).toString(),
                              status ? status.value().value(QStringLiteral("hub")).toString() : QString()));
            return exitcode::Ok;
        }
        if (state == QLatin1String("denied")) {
            out::error(s.value(QStringLiteral("reason")).toString());
            return exitcode::PairingDenied;
        }
        if (state == QLatin1String("expired")) {
            out::error(s.value(QStringLiteral("reason")).toString());
            return exitcode::PairingExpired;
        }
        if (state == QLatin1String("failed") || state == QLatin1String("idle"))
            return out::fail(s.value(QStringLiteral("reason")).toString(QStringLiteral("pairing failed")));
    }
}

int runPair(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Pair this computer with Isolation: prints a code and a link (and a QR code) to approve it "
                       "with, then waits for the approval."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("hub"), QStringLiteral("The hub to pair with (default: the configured hub)."),
        QStringLiteral("url")});
    parser.addOption({QStringLiteral("name"), QStringLiteral("This server's name on the hub (default: the host name)."),
        QStringLiteral("name")});
    parser.addOption({QStringLiteral("no-qr"), QStringLiteral("Do not print the QR code.")});
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    // Checked here too, so a refused hub is said before anything else happens; the engine checks
    // every hub URL again, whoever gave it (core/huburl.h).
    if (parser.isSet(QStringLiteral("hub"))) {
        if (auto hub = HubUrl::check(QUrl(parser.value(QStringLiteral("hub")))); !hub) {
            out::error(hub.error().message);
            return exitcode::Usage; // as the engine's bad_request for the same URL from ISOLATION_HUB_URL
        }
    }
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    const LocalApiClient &api = client.value();

    QJsonObject request;
    if (parser.isSet(QStringLiteral("hub")))
        request.insert(QStringLiteral("hub"), parser.value(QStringLiteral("hub")));
    if (parser.isSet(QStringLiteral("name")))
        request.insert(QStringLiteral("name"), parser.value(QStringLiteral("name")));
    auto started = api.call("POST", QStringLiteral("/v1/pair"), request);
    if (!started)
        return out::localApiFailure(started.error());
    const QJsonObject s = started.value();
    const QString code = s.value(QStringLiteral("userCode")).toString();
    const QString link = s.value(QStringLiteral("verificationUriComplete")).toString();
    out::line(QStringLiteral("To pair this computer, open\n\n    %1\n\nand check that it shows the code\n\n    %2\n")
                  .arg(link, code));
    if (!parser.isSet(QStringLiteral("no-qr")))
        out::line(QrMatrix::encode(link.toUtf8()).toTerminalText());
    const QDateTime expires = QDateTime::fromString(s.value(QStringLiteral("expiresAt")).toString(), Qt::ISODate);
    out::line(QStringLiteral("Waiting for approval (the code expires at %1)…")
                  .arg(expires.toLocalTime().toString(QStringLiteral("HH:mm:ss"))));
    return waitForApproval(api);
}

int runUnpair(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Unpair this computer: tells the hub (when it can be reached) and deletes the stored credentials."));
    parser.addHelpOption();
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    auto r = client.value().call("POST", QStringLiteral("/v1/unpair"));
    if (!r) {
        if (r.error().errorCode == QLatin1String("not_paired")) {
            out::error(r.error().message);
            return exitcode::NotPaired;
        }
        return out::localApiFailure(r.error());
    }
    out::line(QStringLiteral("Unpaired: the credentials of this computer were deleted"));
    return exitcode::Ok;
}

} // namespace

QList<Command> pairingCommands()
{
    return {
        {QStringLiteral("pair"), QStringLiteral("pair [--hub URL] [--name NAME]"),
            QStringLiteral("Pair with a hub: shows a code to approve, waits for approval."), runPair},
        {QStringLiteral("unpair"), QStringLiteral("unpair"),
            QStringLiteral("Forget this computer's pairing (and tell the hub)."), runUnpair},
    };
}

} // namespace isolation
