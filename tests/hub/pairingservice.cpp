#include "pairingservice.h"

#include "memberpages.h"

#include "actionlog.h"
#include "hubstate.h"

#include "core/base64url.h"
#include "crypto/consttime.h"
#include "crypto/hpke.h"
#include "crypto/random.h"

#include <QJsonObject>
#include <QRandomGenerator>
#include <QUrlQuery>

namespace isolation::hub {

namespace {

const QString kAlphabet = QStringLiteral("BCDFGHJKLMNPQRSTVWXZ");
const QByteArray kMemberKeyInfo = QByteArrayLiteral("isolation/member-key/v1");

HttpResponse oauthError(const QString &code, const QString &message)
{
    return HttpResponse::error(400, code, message);
}

QByteArray decodeKey(const QJsonObject &o, const char *key)
{
    const auto r = QByteArray::fromBase64Encoding(
        o.value(QLatin1String(key)).toString().toLatin1(), kBase64Url | QByteArray::AbortOnBase64DecodingErrors);
    return r ? *r : QByteArray();
}

QString html(const QString &title, const QString &body)
{
    return MemberPages::html(title, body,
        QStringLiteral("input[name=user_code]{font:28px monospace;letter-spacing:.1em;width:10em;text-transform:uppercase}"));
}

} // namespace

PairingService::PairingService(HubState &state, ActionLog &log, MemberPages &pages, Options options, QObject *parent)
    : QObject(parent)
    , m_state(state)
    , m_log(log)
    , m_options(options)
    , m_pages(pages)
{ }

QString PairingService::canonicalCode(const QString &typed)
{
    QString out;
    for (QChar c : typed) {
        if (c == QLatin1Char('-') || c.isSpace())
            continue;
        out.append(c.toUpper());
    }
    return out;
}

QString PairingService::displayCode(const QString &canonical)
{
    return canonical.left(4) + QLatin1Char('-') + canonical.mid(4);
}

QString PairingService::newUserCode() const
{
    for (;;) {
        QString code;
        for (int i = 0; i < 8; ++i)
            code.append(kAlphabet.at(int(QRandomGenerator::system()->bounded(quint32(kAlphabet.size())))));
        bool taken = false;
        for (const Flow &f : m_flows)
            taken = taken || f.userCode == code;
        if (!taken)
            return code;
    }
}

void PairingService::expireOld()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (auto it = m_flows.begin(); it != m_flows.end();) {
        // Keep an expired flow a while so its device still learns `expired_token`.
        if (it->expiresAt.addSecs(600) < now || it->status == Flow::Status::Consumed)
            it = m_flows.erase(it);
        else
            ++it;
    }
}

void PairingService::registerRoutes(
    HttpServer &app, std::function<QUrl()> appUrl, std::function<bool(const HttpRequest &)> isAdmin)
{
    app.route("POST", QStringLiteral("/v1/pair/start"), [this, appUrl](const HttpRequest &request, HttpReply reply) {
        expireOld();
        QJsonObject body;
        QString why;
        if (!request.jsonBody(&body, &why)) {
            reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), why));
            return;
        }
        Flow flow;
        flow.x25519Public = decodeKey(body, "x25519Public");
        flow.ed25519Public = decodeKey(body, "ed25519Public");
        flow.name = body.value(QStringLiteral("name")).toString().left(100);
        flow.hostName = body.value(QStringLiteral("hostName")).toString().left(255);
        flow.version = body.value(QStringLiteral("version")).toString().left(50);
        if (flow.x25519Public.size() != 32 || flow.ed25519Public.size() != 32) {
            reply.send(HttpResponse::error(400, QStringLiteral("bad_request"),
                QStringLiteral("x25519Public and ed25519Public must be 32-byte keys (base64url)")));
            return;
        }
        if (flow.name.isEmpty())
            flow.name = flow.hostName.isEmpty() ? QStringLiteral("server") : flow.hostName;
        flow.deviceCode = randomBytes(32).toBase64(kBase64Url); // 256 random bits
        flow.userCode = newUserCode();
        flow.askedAt = QDateTime::currentDateTimeUtc();
        flow.expiresAt = flow.askedAt.addSecs(m_options.codeLifetimeSeconds);
        flow.interval = m_options.pollIntervalSeconds;
        m_flows.insert(flow.deviceCode, flow);
        m_log.record(QStringLiteral("pair.started"),
            {{QStringLiteral("name"), flow.name}, {QStringLiteral("hostName"), flow.hostName},
                {QStringLiteral("userCode"), displayCode(flow.userCode)}});
        QUrl page = appUrl();
        page.setPath(QStringLiteral("/pair"));
        QUrl complete = page;
        complete.setQuery(QStringLiteral("code=") + displayCode(flow.userCode));
        reply.send(HttpResponse::json(200,
            QJsonObject {{QStringLiteral("device_code"), QString::fromLatin1(flow.deviceCode)},
                {QStringLiteral("user_code"), displayCode(flow.userCode)},
                {QStringLiteral("verification_uri"), page.toString()},
                {QStringLiteral("verification_uri_complete"), complete.toString()},
                {QStringLiteral("expires_in"), m_options.codeLifetimeSeconds},
                {QStringLiteral("interval"), flow.interval}}));
    });
    app.route("POST", QStringLiteral("/v1/pair/token"),
        [this](const HttpRequest &request, HttpReply reply) { token(request, reply); });
    app.route(
        "GET", QStringLiteral("/pair"), [this](const HttpRequest &request, HttpReply reply) { page(request, reply); });
    app.route("POST", QStringLiteral("/pair"),
        [this](const HttpRequest &request, HttpReply reply) { pagePost(request, reply); });

    auto adminDecide = [this, isAdmin](bool approve) {
        return [this, isAdmin, approve](const HttpRequest &request, HttpReply reply) {
            if (!isAdmin(request)) {
                reply.send(
                    HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
                return;
            }
            QJsonObject body;
            request.jsonBody(&body);
            switch (decide(body.value(QStringLiteral("code")).toString(), approve, QStringLiteral("admin"))) {
            case Verdict::Approved:
            case Verdict::Denied:
                reply.send(HttpResponse::json(200,
                    QJsonObject {
                        {QStringLiteral("result"), approve ? QStringLiteral("approved") : QStringLiteral("denied")}}));
                return;
            case Verdict::WrongCode:
                reply.send(HttpResponse::error(
                    404, QStringLiteral("invalid_code"), QStringLiteral("no pending pairing has this code")));
                return;
            case Verdict::Locked:
                reply.send(HttpResponse::error(429, QStringLiteral("too_many_attempts"),
                    QStringLiteral("too many wrong codes were tried; start pairing again")));
                return;
            case Verdict::Expired:
                reply.send(
                    HttpResponse::error(410, QStringLiteral("expired_token"), QStringLiteral("this code has expired")));
                return;
            }
        };
    };
    app.route("POST", QStringLiteral("/v1/admin/pair/approve"), adminDecide(true));
    app.route("POST", QStringLiteral("/v1/admin/pair/deny"), adminDecide(false));
}

PairingService::Verdict PairingService::decide(const QString &typedCode, bool approve, const QString &via)
{
    Verdict why = Verdict::WrongCode;
    Flow *match = find(typedCode, via, &why);
    if (!match)
        return why;
    match->status = approve ? Flow::Status::Approved : Flow::Status::Denied;
    m_log.record(approve ? QStringLiteral("pair.approved") : QStringLiteral("pair.denied"),
        {{QStringLiteral("userCode"), displayCode(match->userCode)}, {QStringLiteral("name"), match->name},
            {QStringLiteral("via"), via}});
    return approve ? Verdict::Approved : Verdict::Denied;
}

PairingService::Flow *PairingService::find(const QString &typedCode, const QString &via, Verdict *why)
{
    expireOld();
    const QString code = canonicalCode(typedCode);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    Flow *match = nullptr;
    bool anyLocked = false;
    for (Flow &f : m_flows) {
        if (f.status == Flow::Status::Locked && f.expiresAt > now)
            anyLocked = true;
        if (f.userCode == code && f.status != Flow::Status::Consumed)
            match = &f;
    }
    if (match && match->status == Flow::Status::Locked) {
        m_log.record(QStringLiteral("pair.refused"),
            {{QStringLiteral("reason"), QStringLiteral("locked")}, {QStringLiteral("via"), via}});
        *why = Verdict::Locked;
        return nullptr;
    }
    if (!match || match->status != Flow::Status::Pending) {
        // While a code is locked, guesses are refused outright: the guesser gets no more answers.
        if (anyLocked) {
            m_log.record(QStringLiteral("pair.refused"),
                {{QStringLiteral("reason"), QStringLiteral("locked")}, {QStringLiteral("via"), via}});
            *why = Verdict::Locked;
            return nullptr;
        }
        // A wrong guess counts against every code pending now: any of them may be its target.
        for (Flow &f : m_flows) {
            if (f.status != Flow::Status::Pending || f.expiresAt <= now)
                continue;
            if (++f.wrongGuesses >= m_options.maxWrongGuesses) {
                f.status = Flow::Status::Locked;
                m_log.record(QStringLiteral("pair.locked"), {{QStringLiteral("userCode"), displayCode(f.userCode)}});
            }
        }
        m_log.record(QStringLiteral("pair.wrong_code"), {{QStringLiteral("via"), via}});
        *why = Verdict::WrongCode;
        return nullptr;
    }
    if (match->expiresAt <= now) {
        *why = Verdict::Expired;
        return nullptr;
    }
    return match;
}

void PairingService::token(const HttpRequest &request, HttpReply reply)
{
    QJsonObject body;
    request.jsonBody(&body);
    const QByteArray deviceCode = body.value(QStringLiteral("device_code")).toString().toLatin1();
    auto it = m_flows.find(deviceCode);
    if (deviceCode.isEmpty() || it == m_flows.end()) {
        reply.send(oauthError(QStringLiteral("expired_token"), QStringLiteral("unknown or expired device code")));
        return;
    }
    Flow &flow = *it;
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    const qint64 sinceLast = nowMs - flow.lastPollMs;
    const bool tooSoon = flow.lastPollMs != 0 && sinceLast < qint64(flow.interval) * 1000 - 250;
    flow.lastPollMs = nowMs;
    if (QDateTime::currentDateTimeUtc() > flow.expiresAt) {
        reply.send(
            oauthError(QStringLiteral("expired_token"), QStringLiteral("the code expired before it was approved")));
        return;
    }
    switch (flow.status) {
    case Flow::Status::Pending:
        if (tooSoon) {
            flow.interval += 5; // RFC 8628 §3.5: for this and all later requests
            reply.send(oauthError(
                QStringLiteral("slow_down"), QStringLiteral("polling too fast; wait %1 s").arg(flow.interval)));
            return;
        }
        reply.send(
            oauthError(QStringLiteral("authorization_pending"), QStringLiteral("waiting for the member to approve")));
        return;
    case Flow::Status::Denied:
        reply.send(oauthError(QStringLiteral("access_denied"), QStringLiteral("the member denied this pairing")));
        m_flows.erase(it);
        return;
    case Flow::Status::Locked:
        // Kept until it expires: while it is locked, guesses at any code are refused, so telling
        // the device must not reopen guessing.
        reply.send(oauthError(
            QStringLiteral("access_denied"), QStringLiteral("too many wrong codes were tried; start pairing again")));
        return;
    case Flow::Status::Consumed:
        reply.send(oauthError(QStringLiteral("expired_token"), QStringLiteral("this code was already used")));
        return;
    case Flow::Status::Approved:
        reply.send(approvalAnswer(flow));
        return;
    }
}

HttpResponse PairingService::approvalAnswer(Flow &flow)
{
    ServerRecord record;
    record.id = QStringLiteral("srv_") + QString::fromLatin1(randomBytes(9).toBase64(kBase64Url));
    record.name = flow.name;
    record.hostName = flow.hostName;
    record.version = flow.version;
    record.memberId = m_state.member().id;
    record.x25519Public = flow.x25519Public;
    record.ed25519Public = flow.ed25519Public;
    record.createdAt = QDateTime::currentDateTimeUtc();
    const QByteArray credential = randomBytes(32).toBase64(kBase64Url);
    record.credentialHash = HubState::credentialHash(credential);
    // The member key travels only sealed to this server's key, bound to its id.
    auto sealed = hpkeSeal(flow.x25519Public, kMemberKeyInfo, record.id.toUtf8(), m_state.member().memberKey);
    if (!sealed)
        return HttpResponse::error(500, QStringLiteral("internal"), QStringLiteral("cannot seal the member key"));
    m_state.servers().append(record);
    if (auto s = m_state.save(); !s)
        return HttpResponse::error(500, QStringLiteral("internal"), s.error().message);
    flow.status = Flow::Status::Consumed;
    m_log.record(QStringLiteral("server.paired"),
        {{QStringLiteral("server"), record.id}, {QStringLiteral("name"), record.name}});
    return HttpResponse::json(200,
        QJsonObject {
            {QStringLiteral("server_id"), record.id},
            {QStringLiteral("credential"), QString::fromLatin1(credential)},
            {QStringLiteral("member_id"), record.memberId},
            {QStringLiteral("hub_public_key"), QString::fromLatin1(m_state.hubPublicKey().toBase64(kBase64Url))},
            {QStringLiteral("sealed_member_key"), QString::fromLatin1(sealed.value().toBase64(kBase64Url))},
            {QStringLiteral("heartbeat_interval"), m_options.heartbeatIntervalSeconds},
        });
}

void PairingService::page(const HttpRequest &request, HttpReply reply)
{
    HttpResponse response;
    const QByteArray csrf = m_pages.begin(request, response);
    const QString code = request.query.queryItemValue(QStringLiteral("code"), QUrl::FullyDecoded).left(20);
    const QString body
        = QStringLiteral("<p>Signed in as <b>%1</b>.</p>"
                         "<p>Type the code your computer shows to let it join your Isolation account.</p>"
                         "<form method=\"post\" action=\"/pair\">"
                         "<input type=\"hidden\" name=\"csrf\" value=\"%2\">"
                         "<label>Code<br><input name=\"user_code\" value=\"%3\" autocomplete=\"off\" autofocus "
                         "aria-label=\"Pairing code\" maxlength=\"9\"></label><br>"
                         "<button name=\"action\" value=\"review\">Continue</button></form>")
              .arg(m_state.member().name.toHtmlEscaped(), QString::fromLatin1(csrf), code.toHtmlEscaped());
    HttpResponse page = MemberPages::page(200, html(QStringLiteral("Pair a computer"), body));
    page.headers += response.headers; // the new page session's cookie
    reply.send(page);
}

QString PairingService::reviewBody(const Flow &flow, const QByteArray &csrf) const
{
    // RFC 8628 §5.4: what the device said it is and when it asked, so a member who was sent a
    // code by someone else sees a computer and a moment that are not theirs.
    const QDateTime asked = flow.askedAt;
    const qint64 ago = std::max<qint64>(0, asked.secsTo(QDateTime::currentDateTimeUtc()));
    const QString agoText = ago < 120 ? QStringLiteral("%1 seconds ago").arg(ago)
                                      : QStringLiteral("%1 minutes ago").arg(ago / 60);
    return QStringLiteral("<p>A computer asks to join your Isolation account:</p><dl>"
                          "<dt>Name</dt><dd id=\"device-name\"><b>%1</b></dd>"
                          "<dt>Host name</dt><dd>%2</dd><dt>Version</dt><dd>%3</dd>"
                          "<dt>Asked</dt><dd id=\"asked-at\"><time datetime=\"%4\">%5</time> (%6)</dd></dl>"
                          "<p>Approve only if this is your computer and you started pairing on it just now.</p>"
                          "<form method=\"post\" action=\"/pair\">"
                          "<input type=\"hidden\" name=\"csrf\" value=\"%7\">"
                          "<input type=\"hidden\" name=\"user_code\" value=\"%8\">"
                          "<button name=\"action\" value=\"approve\">Approve</button>"
                          "<button name=\"action\" value=\"deny\">Deny</button></form>")
        .arg(flow.name.toHtmlEscaped(), flow.hostName.toHtmlEscaped(), flow.version.toHtmlEscaped(),
            asked.toString(Qt::ISODate), asked.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss t")),
            agoText, QString::fromLatin1(csrf), displayCode(flow.userCode));
}

void PairingService::pagePost(const HttpRequest &request, HttpReply reply)
{
    const QUrlQuery form(QString::fromUtf8(request.body));
    if (!m_pages.check(request, form)) {
        reply.send(MemberPages::page(403,
            html(QStringLiteral("Not allowed"),
                QStringLiteral("<p class=bad>This form expired. <a href=\"/pair\">Start again</a>.</p>"))));
        return;
    }
    const QString action = form.queryItemValue(QStringLiteral("action"));
    const QString typed = form.queryItemValue(QStringLiteral("user_code"), QUrl::FullyDecoded);
    Verdict verdict = Verdict::WrongCode;
    if (action == QLatin1String("review")) {
        // Looking a code up is a guess like deciding on it: wrong ones count the same.
        if (const Flow *flow = find(typed, QStringLiteral("page"), &verdict)) {
            HttpResponse dummy;
            reply.send(MemberPages::page(
                200, html(QStringLiteral("Pair this computer?"), reviewBody(*flow, m_pages.begin(request, dummy)))));
            return;
        }
    } else {
        verdict = decide(typed, action == QLatin1String("approve"), QStringLiteral("page"));
    }
    QString title, text;
    int status = 200;
    switch (verdict) {
    case Verdict::Approved:
        title = QStringLiteral("Computer approved");
        text = QStringLiteral("<p class=ok>The computer is now paired. You can close this page.</p>");
        break;
    case Verdict::Denied:
        title = QStringLiteral("Pairing denied");
        text = QStringLiteral("<p>The computer was not paired.</p>");
        break;
    case Verdict::WrongCode:
        status = 404;
        title = QStringLiteral("Unknown code");
        text = QStringLiteral(
            "<p class=bad>No computer is waiting with that code. <a href=\"/pair\">Try again</a>.</p>");
        break;
    case Verdict::Locked:
        status = 429;
        title = QStringLiteral("Too many attempts");
        text = QStringLiteral("<p class=bad>Too many wrong codes were tried. Start pairing again on the computer.</p>");
        break;
    case Verdict::Expired:
        status = 410;
        title = QStringLiteral("Code expired");
        text = QStringLiteral("<p class=bad>That code has expired. Start pairing again on the computer.</p>");
        break;
    }
    reply.send(MemberPages::page(status, html(title, text)));
}

} // namespace isolation::hub
