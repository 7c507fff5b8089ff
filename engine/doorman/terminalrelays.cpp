#include "terminalrelays.h"

#include "core/logging.h"
#include "crypto/random.h"
#include "runtime/execdclient.h"

#include <QCryptographicHash>
#include <QFile>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QRegularExpression>
#include <QUrl>

Q_DECLARE_LOGGING_CATEGORY(lcDoorman)

namespace isolation {

namespace {

constexpr qsizetype MaxRelaySize = 16 * 1024 * 1024; // a static build is about 1 MiB
constexpr qint64 StartTimeoutMs = 20000;

QString endpointKey(const ViewTarget &target)
{
    return target.host + QLatin1Char(':') + QString::number(target.port);
}

QUrl execdBase(const ViewTarget &target)
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(target.host);
    url.setPort(target.port);
    return url;
}

// Why the relay did not start, from its command's output (its own message on stderr, or execd's).
QString startFailure(const CommandOutput &out)
{
    QString why = QString::fromUtf8(out.stdErr).trimmed();
    if (why.isEmpty())
        why = out.error.trimmed();
    if (why.isEmpty())
        why = QStringLiteral("it ended with status %1").arg(out.exitCode);
    return why.left(300);
}

} // namespace

TerminalRelays::TerminalRelays(QString program, QObject *parent)
    : QObject(parent)
    , m_program(std::move(program))
{
}

TerminalRelays::~TerminalRelays()
{
    for (const View &v : std::as_const(m_views)) {
        if (!v.relay.secret.isEmpty())
            logging::removeRedaction(v.relay.secret);
    }
}

Result<QByteArray> TerminalRelays::binary()
{
    if (!m_binary.isEmpty())
        return m_binary;
    if (m_program.isEmpty())
        return Error::unavailable(QStringLiteral("this engine has no PTY relay"));
    QFile f(m_program);
    if (!f.open(QIODevice::ReadOnly))
        return Error::unavailable(QStringLiteral("the PTY relay %1: %2").arg(m_program, f.errorString()));
    if (f.size() > MaxRelaySize)
        return Error::invalidInput(QStringLiteral("the PTY relay %1 is %2 bytes").arg(m_program).arg(f.size()));
    QByteArray content = f.readAll();
    if (content.size() != f.size())
        return Error::unavailable(QStringLiteral("the PTY relay %1 could not be read").arg(m_program));
    m_hash = QString::fromLatin1(QCryptographicHash::hash(content, QCryptographicHash::Sha256).toHex().left(16));
    m_binary = std::move(content);
    return m_binary;
}

QString TerminalRelays::sandboxPath() const
{
    return QStringLiteral("/tmp/.isolation-pty-relay-") + m_hash;
}

void TerminalRelays::relayFor(const ViewClaims &claims, const ViewTarget &target, Done done)
{
    View &v = m_views[claims.viewId];
    v.expiresAt = claims.expiresAt;
    if (v.started) {
        const TerminalRelay relay = v.relay;
        QMetaObject::invokeMethod(this, [done = std::move(done), relay] { done(relay); }, Qt::QueuedConnection);
        return;
    }
    v.waiting.append(std::move(done));
    if (v.waiting.size() > 1)
        return; // a start is under way
    if (auto b = binary(); !b) {
        const QString viewId = claims.viewId;
        const Error error = b.error();
        QMetaObject::invokeMethod(this, [this, viewId, error] { finish(viewId, error); }, Qt::QueuedConnection);
        return;
    }
    start(claims.viewId, target, m_uploaded.contains(endpointKey(target)));
}

void TerminalRelays::start(const QString &viewId, const ViewTarget &target, bool uploaded)
{
    if (!m_network)
        m_network = new QNetworkAccessManager(this);
    auto *execd = new ExecdClient(m_network, execdBase(target), target.accessToken, this);
    execd->setTimeout(int(StartTimeoutMs));
    const QString path = sandboxPath();
    const QString key = endpointKey(target);

    auto run = [this, execd, viewId, target, path, uploaded] {
        const QByteArray secret = randomBytes(32).toHex();
        logging::addRedaction(secret);
        CommandRequest request;
        request.command = path + QStringLiteral(" --cwd /workspace");
        request.cwd = QStringLiteral("/");
        // In the command's environment only: never on its command line, which execd and `ps` show.
        request.envs.insert(QStringLiteral("ISOLATION_PTY_SECRET"), QString::fromLatin1(secret));
        request.timeoutMs = StartTimeoutMs;
        execd->runCommand(request, [this, execd, viewId, target, secret, uploaded](Result<CommandOutput, ExecdError> r) {
            execd->deleteLater();
            static const QRegularExpression listening(QStringLiteral("listening 127\\.0\\.0\\.1:(\\d{1,5})\\b"));
            if (r) {
                const auto m = listening.match(QString::fromUtf8(r.value().stdOut));
                const uint port = m.hasMatch() ? m.captured(1).toUInt() : 0;
                if (r.value().exitCode == 0 && port > 0 && port < 65536) {
                    finish(viewId, TerminalRelay {quint16(port), secret});
                    return;
                }
            }
            logging::removeRedaction(secret);
            if (uploaded) {
                // The sandbox may be a new one at the same endpoint (resumed): copy the relay again.
                m_uploaded.remove(endpointKey(target));
                start(viewId, target, false);
                return;
            }
            finish(viewId,
                Error::unavailable(QStringLiteral("the PTY relay did not start: %1")
                        .arg(r ? startFailure(r.value()) : r.error().message)));
        });
    };
    if (uploaded) {
        run();
        return;
    }
    execd->upload(path, m_binary, 755, [this, execd, viewId, key, run](Result<bool, ExecdError> r) {
        if (!r) {
            execd->deleteLater();
            finish(viewId,
                Error::unavailable(QStringLiteral("the PTY relay could not be copied into the sandbox: %1")
                        .arg(r.error().message)));
            return;
        }
        m_uploaded.insert(key);
        run();
    });
}

void TerminalRelays::finish(const QString &viewId, Result<TerminalRelay> result)
{
    auto it = m_views.find(viewId);
    if (it == m_views.end()) {
        if (result)
            logging::removeRedaction(result.value().secret);
        return;
    }
    const QList<Done> waiting = std::move(it->waiting);
    it->waiting.clear();
    if (result) {
        it->relay = result.value();
        it->started = true;
        qCInfo(lcDoorman) << "view" << viewId << "has a PTY relay on sandbox port" << it->relay.port;
    } else {
        qCInfo(lcDoorman).noquote() << "view" << viewId << "has no PTY relay:" << result.error().message;
        m_views.erase(it);
    }
    for (const Done &d : waiting)
        d(result);
}

std::optional<TerminalRelay> TerminalRelays::running(const QString &viewId) const
{
    const auto it = m_views.constFind(viewId);
    if (it == m_views.constEnd() || !it->started)
        return std::nullopt;
    return it->relay;
}

void TerminalRelays::forget(const QString &viewId)
{
    auto it = m_views.find(viewId);
    if (it == m_views.end() || !it->started)
        return;
    logging::removeRedaction(it->relay.secret);
    m_views.erase(it);
}

void TerminalRelays::purge(qint64 nowUnixSeconds)
{
    for (auto it = m_views.begin(); it != m_views.end();) {
        if (it->started && it->expiresAt <= nowUnixSeconds) {
            logging::removeRedaction(it->relay.secret);
            it = m_views.erase(it);
        } else {
            ++it;
        }
    }
}

} // namespace isolation
