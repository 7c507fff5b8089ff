// One client connection of HttpServer: feeds the parser, hands complete requests to the server
// one at a time, writes the answers in order. Internal to the http module.
#pragma once

#include "httpmessage.h"
#include "httprequestparser.h"

#include <QHostAddress>
#include <QObject>

class QIODevice;

namespace isolation {

class HttpServer;

class HttpConnection final : public QObject
{
    Q_OBJECT
public:
    HttpConnection(QIODevice *device, const QHostAddress &peer, HttpServer *server);
    ~HttpConnection() override;

    void sendResponse(quint64 sequence, HttpResponse response);
    void sendHead(quint64 sequence, int status, HttpHeaders headers);
    void writeChunk(quint64 sequence, const QByteArray &chunk);
    void finishChunks(quint64 sequence);
    bool isCurrent(quint64 sequence) const { return m_busy && sequence == m_sequence; }
    void closeNow();

private:
    void onReadyRead();
    void onPeerClosed();
    void process();
    void scheduleProcess();
    void answerError(int status, const QString &message);
    void completeExchange();
    void closeGracefully();

    QIODevice *m_device;
    QHostAddress m_peer;
    HttpServer *m_server;
    HttpRequestParser m_parser;
    QByteArray m_in;
    QByteArray m_head; // bytes of the current request so far, for upgrades
    quint64 m_sequence = 0;
    bool m_busy = false;
    bool m_streaming = false;
    bool m_keepAlive = true;
    bool m_headRequest = false;
    bool m_closing = false;
    bool m_processScheduled = false;
};

} // namespace isolation
