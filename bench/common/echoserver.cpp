// isolation-bench-echo: the backend for the peer path of the benchmarks. Answers POST /echo with
// the same JSON the engine's `ping` gives ({"result": {"pong": true, "echo": ...}}), on the same
// HTTP stack the hub uses, so the peer path and ours differ only in how the bytes travel.
#include "http/httpserver.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const quint16 port = argc > 1 ? quint16(QByteArray(argv[1]).toUInt()) : 0;
    isolation::HttpServer server;
    isolation::HttpLimits limits;
    limits.maxBodyBytes = 64 * 1024 * 1024;
    server.setLimits(limits);
    server.route("POST", QStringLiteral("/echo"), [](const isolation::HttpRequest &request, isolation::HttpReply reply) {
        QJsonObject body;
        request.jsonBody(&body);
        const QJsonValue echo = body.value(QStringLiteral("params")).toObject().value(QStringLiteral("echo"));
        reply.send(isolation::HttpResponse::json(
            200, QJsonObject{{QStringLiteral("result"), QJsonObject{{QStringLiteral("pong"), true}, {QStringLiteral("echo"), echo}}}}));
    });
    auto bound = server.listenTcp(QHostAddress::LocalHost, port);
    if (!bound) {
        std::fprintf(stderr, "echo: %s\n", qPrintable(bound.error().message));
        return 1;
    }
    std::printf("%u\n", unsigned(bound.value()));
    std::fflush(stdout);
    return QCoreApplication::exec();
}
