// The hub's side of device-code pairing (RFC 8628 semantics, docs/protocol.md): codes for
// servers, the approval page on the app origin (which shows the device's name and when it asked
// before the member approves, RFC 8628 §5.4), approve/deny by page or admin, wrong-guess limits,
// and the credential + sealed member key handed out on approval.
#pragma once

#include "http/httpserver.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QUrl>

#include <functional>

namespace isolation::hub {

class MemberPages;

class ActionLog;
class HubState;

class PairingService final : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        int codeLifetimeSeconds = 600;
        int pollIntervalSeconds = 5;
        int heartbeatIntervalSeconds = 15;
        int maxWrongGuesses = 5;
    };

    PairingService(HubState &state, ActionLog &log, MemberPages &pages, Options options, QObject *parent = nullptr);

    // `appUrl` is the origin the approval page lives on.
    void registerRoutes(
        HttpServer &app, std::function<QUrl()> appUrl, std::function<bool(const HttpRequest &)> isAdmin);

    enum class Verdict { Approved, Denied, WrongCode, Locked, Expired };
    // Approves or denies the code a member typed (any case, with or without the dash).
    Verdict decide(const QString &typedCode, bool approve, const QString &via);

private:
    struct Flow
    {
        QByteArray deviceCode;
        QString userCode; // canonical: 8 letters, no dash
        QString name;
        QString hostName;
        QString version;
        QByteArray x25519Public;
        QByteArray ed25519Public;
        QDateTime askedAt;
        QDateTime expiresAt;
        int interval = 5;
        qint64 lastPollMs = 0;
        int wrongGuesses = 0;
        enum class Status { Pending, Approved, Denied, Locked, Consumed } status = Status::Pending;
        QString serverId; // once approved
    };

    void start(const HttpRequest &request, HttpReply reply);
    void token(const HttpRequest &request, HttpReply reply);
    void page(const HttpRequest &request, HttpReply reply);
    void pagePost(const HttpRequest &request, HttpReply reply);
    void expireOld();
    // The pending flow a typed code names, counting a wrong code against every pending one (the
    // verdict says why there is none).
    Flow *find(const QString &typedCode, const QString &via, Verdict *why);
    QString reviewBody(const Flow &flow, const QByteArray &csrf) const;
    HttpResponse approvalAnswer(Flow &flow);
    static QString canonicalCode(const QString &typed);
    static QString displayCode(const QString &canonical);
    QString newUserCode() const;

    HubState &m_state;
    ActionLog &m_log;
    Options m_options;
    QHash<QByteArray, Flow> m_flows; // by device code
    MemberPages &m_pages;
};

} // namespace isolation::hub
