// libFuzzer target: the client side of the LocalAPI, an answer as it comes off the socket. For
// GET /v1/events (engine/localapi/sseparser): the HTTP head, the chunked body and the server-sent
// events in it. For every other call (engine/http/httpresponseparser, LocalApiClient): the head
// and the body, by Content-Length, chunked or up to the close. The first byte chooses where the
// input is cut in two feeds (a read boundary anywhere).
// Invariants: the same bytes in one feed or two give the same events and state (the same answer);
// no event's data and no body passes its limit; after an error or the end, nothing more comes
// out; once the peer closed, an answer is complete or an error; nothing crashes or leaks.
#include "fuzzsupport.h"

#include "http/httpresponseparser.h"
#include "localapi/eventstream.h"
#include "localapi/sseparser.h"

#include <cstddef>
#include <cstdint>

using namespace isolation;
using namespace isolation::fuzz;

namespace {

struct Run
{
    QList<SseEvent> events;
    SseParser::State state;
    QByteArray lastId;
};

Run parse(const QByteArray &bytes, qsizetype cut)
{
    SseParser p;
    Run r;
    r.events = p.feed(bytes.first(cut));
    r.events += p.feed(bytes.sliced(cut));
    r.state = p.state();
    r.lastId = p.lastId();
    if (p.state() == SseParser::State::Error || p.state() == SseParser::State::Ended) {
        if (!p.feed("HTTP/1.1 200 OK\r\n\r\ndata: x\n\n").isEmpty())
            broken("events after the stream ended or failed");
    }
    return r;
}

// The answer parser's limit on bodies, small enough for inputs to pass it.
constexpr qint64 kMaxBody = 1024;

struct Answer
{
    HttpResponseParser::State state;
    HttpResponse response;
};

Answer parseAnswer(const QByteArray &bytes, qsizetype cut, bool noBody)
{
    HttpResponseParser p(noBody, kMaxBody);
    p.feed(bytes.first(cut));
    p.feed(bytes.sliced(cut));
    const HttpResponseParser::State fed = p.state();
    p.finish();
    if (p.state() == HttpResponseParser::State::NeedMore)
        broken("an answer neither complete nor failed after the close");
    if (fed != HttpResponseParser::State::NeedMore && p.state() != fed)
        broken("the close changed an answer already decided");
    if (p.response().body.size() > kMaxBody)
        broken("a body past the limit came out");
    if (noBody && p.state() == HttpResponseParser::State::Complete && !p.response().body.isEmpty())
        broken("a body in an answer that has none");
    return {p.state(), p.response()};
}

bool same(const QList<SseEvent> &a, const QList<SseEvent> &b)
{
    if (a.size() != b.size())
        return false;
    for (qsizetype i = 0; i < a.size(); ++i) {
        if (a[i].id != b[i].id || a[i].kind != b[i].kind || a[i].data != b[i].data)
            return false;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    initialise();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const QByteArray bytes(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    const qsizetype cut = bytes.isEmpty() ? 0 : qsizetype(data[0]) % (bytes.size() + 1);
    const Run whole = parse(bytes, bytes.size());
    const Run split = parse(bytes, cut);
    // An error may come at a different point when the limit checks see other pieces; only a run
    // that ends well in both ways must agree event for event.
    if (whole.state != SseParser::State::Error && split.state != SseParser::State::Error) {
        if (!same(whole.events, split.events) || whole.state != split.state || whole.lastId != split.lastId)
            broken("one feed and two feeds disagree");
    }
    for (const bool noBody : {false, true}) {
        const Answer a = parseAnswer(bytes, bytes.size(), noBody);
        const Answer b = parseAnswer(bytes, cut, noBody);
        if (a.state != HttpResponseParser::State::Error && b.state != HttpResponseParser::State::Error
            && (a.state != b.state || a.response.status != b.response.status || a.response.headers != b.response.headers
                || a.response.body != b.response.body))
            broken("one feed and two feeds give different answers");
    }
    for (const SseEvent &e : whole.events) {
        if (e.data.size() > SseParser::kMaxEventBytes)
            broken("an event past the limit came out");
        if (e.kind.isEmpty())
            broken("an event without a kind came out");
    }
    // What the engine writes reads back as itself.
    if (!whole.events.isEmpty()) {
        const SseEvent &e = whole.events.first();
        if (!e.data.contains('\n') && !e.kind.contains('\n') && !e.kind.contains('\r') && !e.data.contains('\r')
            && !e.id.contains('\n') && !e.id.contains('\r') && !e.id.isEmpty() && !e.kind.startsWith(' ')
            && !e.data.startsWith(' ') && !e.id.startsWith(' ')) {
            const QByteArray frame = EventStream::frame(QString::fromLatin1(e.id), e.kind, e.data);
            const QByteArray answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + QByteArray::number(frame.size(), 16) + "\r\n" + frame + "\r\n";
            SseParser p;
            const QList<SseEvent> back = p.feed(answer);
            if (back.size() != 1 || back.first().data != e.data || back.first().kind != e.kind
                || back.first().id != QString::fromLatin1(e.id).toLatin1())
                broken("a frame the engine writes does not read back");
        }
    }
    return 0;
}
