// libFuzzer target: the doorman's request handling, as its local door runs it: the bytes parsed
// by HttpRequestParser with the door's limits, then Doorman::admit (the one rule set of both
// doors). In the input, "@TOKEN@" becomes a genuine view token and "@COOKIE@" the cookie of an
// open preview view, so the fuzzer reaches the rules behind authentication too; "@VIEW:<kind>@" and
// "@COOKIE:<kind>@" are the view id and cookie of an open view of that kind (terminal, files,
// editor, agent), for the pages and calls of each.
// Invariants: whatever is forwarded carries no view cookie (other cookies pass), Authorization,
// execd token or view token towards the sandbox, targets execd's API under a fixed prefix with no dot-segment, and
// only an admitted view; the agent view's calls only from an agent view, with nothing towards execd;
// refusals are 4xx.
#include "fuzzsupport.h"

#include "doorman/doorman.h"
#include "doorman/httpdoor.h"
#include "http/httprequestparser.h"

#include <cstddef>
#include <cstdint>

using namespace isolation;
using namespace isolation::fuzz;

namespace {

class NoTargets final : public ViewTargetResolver
{
public:
    void resolve(const QString &, Callback done) override { done(Error::notFound(QStringLiteral("none"))); }
};

struct Rig
{
    ManualClock clock {kNow};
    NoTargets targets;
    std::unique_ptr<Doorman> doorman;
    QByteArray token;
    QByteArray cookie;
    QHash<QByteArray, std::pair<QByteArray, QByteArray>> kinds; // kind name -> view id, cookie
};

// Opens a view of `kind` with the given id; its cookie ("__Host-isolation_view=...").
QByteArray openView(Doorman &doorman, const QString &viewId, ViewKind kind, char nonce)
{
    ViewClaims c = claims();
    c.viewId = viewId;
    c.kind = kind;
    c.port = kind == ViewKind::Preview ? 8000 : 0;
    c.nonce = QByteArray(16, nonce);
    DoorRequest open;
    open.method = "GET";
    open.target = "/?view_token=" + ViewToken::mint(c, hubKey().privateKey.view()).value();
    open.viewId = viewId;
    open.host = viewId.toLatin1() + ".localhost:8090";
    open.proto = "http";
    const Admission a = doorman.admit(open);
    const QByteArray setCookie = a.answer ? a.answer->header("set-cookie") : QByteArray();
    return setCookie.left(setCookie.indexOf(';'));
}

Rig &rig()
{
    static Rig *r = [] {
        auto *r = new Rig;
        Doorman::Options o;
        o.serverId = kServer;
        o.hubPublicKey = hubKey().publicKey;
        r->doorman = std::make_unique<Doorman>(o, r->clock, &r->targets);
        r->token = ViewToken::mint(claims(), hubKey().privateKey.view()).value();
        // Open the views once: the cookies the fuzzer's requests may carry.
        r->cookie = openView(*r->doorman, kView, ViewKind::Preview, '\x08');
        if (r->cookie.isEmpty())
            broken("the view did not open");
        char nonce = '\x10';
        for (ViewKind kind : {ViewKind::Terminal, ViewKind::Files, ViewKind::Editor, ViewKind::Agent}) {
            const QString id = QStringLiteral("v0123456789abcdef012345%1").arg(int(kind), 2, 10, QLatin1Char('0'));
            const QByteArray cookie = openView(*r->doorman, id, kind, nonce++);
            if (cookie.isEmpty())
                broken("a view did not open");
            r->kinds.insert(viewKindName(kind).toLatin1(), {id.toLatin1(), cookie});
        }
        return r;
    }();
    return *r;
}

bool named(const HttpHeaders &headers, QByteArrayView name)
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    initialise();
    rig();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    Rig &r = rig();
    QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    input.replace("@TOKEN@", r.token);
    input.replace("@COOKIE@", r.cookie);
    if (input.contains("@VIEW:") || input.contains("@COOKIE:")) {
        for (auto it = r.kinds.cbegin(); it != r.kinds.cend(); ++it) {
            input.replace(QByteArray("@VIEW:" + it.key() + "@"), it.value().first);
            input.replace(QByteArray("@COOKIE:" + it.key() + "@"), it.value().second);
        }
    }

    HttpRequestParser parser(HttpDoor::limits());
    parser.feed(input.constData(), input.size());
    if (parser.state() == HttpRequestParser::State::Error) {
        if (parser.errorStatus() < 400 || parser.errorStatus() > 499)
            broken("a parser refusal that is not 4xx");
        return 0;
    }
    if (parser.state() != HttpRequestParser::State::Complete && parser.state() != HttpRequestParser::State::Upgrade)
        return 0;
    HttpRequest request = parser.takeRequest();
    request.peer = QHostAddress::LocalHost;
    DoorRequest door = HttpDoor::doorRequest(*r.doorman, request);
    door.websocket = parser.state() == HttpRequestParser::State::Upgrade;
    const Admission a = r.doorman->admit(door);
    if (a.answer) {
        if (a.answer->status >= 500)
            broken("a 5xx refusal");
        if (a.answer->header("referrer-policy") != "no-referrer")
            broken("an answer without Referrer-Policy: no-referrer");
        return 0;
    }
    // Forwarded: only for a view that was opened, and clean towards the sandbox.
    bool opened = a.claims.viewId == kView;
    for (const auto &view : std::as_const(r.kinds))
        opened = opened || a.claims.viewId == QLatin1String(view.first);
    if (!opened || door.viewId != a.claims.viewId)
        broken("forwarded for a view never opened");
    if (a.agentCall != Admission::AgentCall::None) {
        // Answered by the engine: an agent view's only, and nothing goes to execd.
        if (a.claims.kind != ViewKind::Agent || !a.upstreamTarget.isEmpty())
            broken("an agent call from another view, or towards execd");
        return 0;
    }
    for (const char *name : {"authorization", "x-execd-access-token", "host", "connection", "proxy-authorization"}) {
        if (named(a.headers, name))
            broken("a credential or hop-by-hop header forwarded");
    }
    for (const auto &h : a.headers) {
        // The application's own cookies pass; the view's never does.
        if (h.second.contains(r.cookie.mid(r.cookie.indexOf('=') + 1)) || h.second.contains(r.token)
            || (h.first.compare("cookie", Qt::CaseInsensitive) == 0 && h.second.contains("isolation_view")))
            broken("the view cookie or token forwarded");
    }
    const QByteArray &t = a.upstreamTarget;
    if (!(t.startsWith("/proxy/") || t.startsWith("/session/") || t.startsWith("/files/")
            || t.startsWith("/directories/") || t.startsWith("/command")))
        broken("an upstream target outside execd API prefixes");
    const QByteArray path = t.left(t.indexOf('?'));
    if (path.contains("/../") || path.endsWith("/..") || path.contains("/./") || path.contains("view_token="))
        broken("a dot-segment or token in the upstream path");
    return 0;
}
