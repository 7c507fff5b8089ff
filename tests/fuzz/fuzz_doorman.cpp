// libFuzzer target: the doorman's request handling, as its local door runs it: the bytes parsed
// by HttpRequestParser with the door's limits, then Doorman::admit (the one rule set of both
// doors). In the input, "@TOKEN@" becomes a genuine view token and "@COOKIE@" the cookie of an
// open view, so the fuzzer reaches the rules behind authentication too.
// Invariants: whatever is forwarded carries no view cookie (other cookies pass), Authorization,
// execd token or view token towards the sandbox, targets execd's API under a fixed prefix with no dot-segment, and
// only an admitted view; refusals are 4xx.
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
};

Rig &rig()
{
    static Rig *r = [] {
        auto *r = new Rig;
        Doorman::Options o;
        o.serverId = kServer;
        o.hubPublicKey = hubKey().publicKey;
        r->doorman = std::make_unique<Doorman>(o, r->clock, &r->targets);
        r->token = ViewToken::mint(claims(), hubKey().privateKey.view()).value();
        // Open the view once: the cookie the fuzzer's requests may carry.
        ViewClaims second = claims();
        second.nonce = QByteArray(16, '\x08');
        DoorRequest open;
        open.method = "GET";
        open.target = "/?view_token=" + ViewToken::mint(second, hubKey().privateKey.view()).value();
        open.viewId = kView;
        open.host = kView.toLatin1() + ".localhost:8090";
        open.proto = "http";
        const Admission a = r->doorman->admit(open);
        const QByteArray setCookie = a.answer ? a.answer->header("set-cookie") : QByteArray();
        r->cookie = setCookie.left(setCookie.indexOf(';'));
        if (r->cookie.isEmpty())
            broken("the view did not open");
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
    // Forwarded: only for the view that was opened, and clean towards the sandbox.
    if (a.claims.viewId != kView || door.viewId != kView)
        broken("forwarded for a view never opened");
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
