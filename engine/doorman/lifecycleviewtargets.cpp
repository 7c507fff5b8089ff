#include "lifecycleviewtargets.h"

#include "core/logging.h"
#include "crypto/random.h"
#include "runtime/execdclient.h"
#include "runtime/lifecycleclient.h"

#include <QHostAddress>
#include <QPointer>

namespace isolation {

LifecycleViewTargets::LifecycleViewTargets(LifecycleClient *lifecycle, QObject *parent)
    : QObject(parent)
    , m_lifecycle(lifecycle)
{ }

QByteArray LifecycleViewTargets::newAccessToken()
{
    return randomBytes(32).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

void LifecycleViewTargets::add(const QString &sessionId, const QString &sandboxId, const QByteArray &accessToken)
{
    logging::addRedaction(accessToken);
    m_sessions.insert(sessionId, Entry {sandboxId, accessToken, {}, 0, {}});
}

void LifecycleViewTargets::remove(const QString &sessionId)
{
    auto it = m_sessions.find(sessionId);
    if (it == m_sessions.end())
        return;
    const QList<Callback> waiting = std::move(it->waiting);
    m_sessions.erase(it);
    for (const Callback &done : waiting)
        done(Error::notFound(QStringLiteral("the session ended")));
}

std::optional<Result<ViewTarget>> LifecycleViewTargets::resolveNow(const QString &sessionId)
{
    const auto it = m_sessions.constFind(sessionId);
    if (it == m_sessions.cend())
        return Result<ViewTarget>(Error::notFound(QStringLiteral("no such session")));
    if (it->port != 0)
        return Result<ViewTarget>(ViewTarget {it->host, it->port, it->accessToken});
    return std::nullopt;
}

void LifecycleViewTargets::resolve(const QString &sessionId, Callback done)
{
    if (auto now = resolveNow(sessionId)) {
        done(std::move(*now));
        return;
    }
    auto it = m_sessions.find(sessionId);
    it->waiting.append(std::move(done));
    if (it->waiting.size() > 1)
        return;
    QPointer<LifecycleViewTargets> self(this);
    m_lifecycle->endpoint(it->sandboxId, ExecdClient::Port, [self, sessionId](Result<QJsonObject, LifecycleError> r) {
        if (!self)
            return;
        auto it = self->m_sessions.find(sessionId);
        if (it == self->m_sessions.end())
            return;
        const QList<Callback> waiting = std::move(it->waiting);
        it->waiting.clear();
        Result<ViewTarget> out = Error::unavailable(QStringLiteral("the sandbox has no execd endpoint"));
        if (!r) {
            out = Error::unavailable(QStringLiteral("cannot resolve the sandbox: %1").arg(r.error().message));
        } else {
            // "127.0.0.1:PORT" (execd itself) — the lifecycle API's endpoint form.
            const QString where = r.value().value(QStringLiteral("endpoint")).toString();
            const qsizetype colon = where.lastIndexOf(QLatin1Char(':'));
            bool ok = false;
            const uint port = colon > 0 ? where.mid(colon + 1).toUInt(&ok) : 0;
            QString host = where.left(colon);
            if (host == QLatin1String("localhost"))
                host = QStringLiteral("127.0.0.1");
            // The doorman connects to an address; a name (a gateway's) is not this machine's execd.
            if (ok && port > 0 && port < 65536 && !QHostAddress(host).isNull()) {
                it->host = host;
                it->port = quint16(port);
                out = ViewTarget {it->host, it->port, it->accessToken};
            } else if (ok) {
                out = Error::unavailable(
                    QStringLiteral("the sandbox's execd endpoint %1 is not an address on this machine").arg(where));
            }
        }
        for (const Callback &done : waiting)
            done(out);
    });
}

} // namespace isolation
