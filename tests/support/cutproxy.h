// CutProxy: a TCP proxy between a client and a server that, while armed, cuts the client's
// connection at a chosen moment of chosen requests — after the server answered (it did the work,
// the client never hears) or before the request's last byte (the server never gets it whole). For
// tests of outcomes the client cannot know. Requests are recognised by their request line; bodies
// must carry Content-Length.
#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QTcpServer>
#include <QUrl>

class QTcpSocket;

namespace isolation::test {

class CutProxy final : public QObject
{
    Q_OBJECT
public:
    enum class Cut {
        AfterAnswer, // forward the whole request, drop the server's answer, cut the client
        BeforeLastByte, // forward all but the body's last byte, then cut both sides
    };

    explicit CutProxy(quint16 upstreamPort, QObject *parent = nullptr);
    ~CutProxy() override;

    bool listen();
    QUrl url() const;

    // Every request whose request line starts with `requestLinePrefix` is cut until disarm().
    void arm(Cut cut, const QByteArray &requestLinePrefix);
    void disarm();
    int cuts() const { return m_cuts; } // requests cut so far
    int matched() const { return m_matched; } // requests seen that matched the prefix while armed

private:
    struct Pipe;
    void accept();
    void fromClient(Pipe *pipe);
    void fromServer(Pipe *pipe);
    void cut(Pipe *pipe);
    void drop(Pipe *pipe);
    void close(Pipe *pipe, bool abortClient);

    quint16 m_upstreamPort;
    QTcpServer m_server;
    QList<Pipe *> m_pipes;
    bool m_armed = false;
    Cut m_cut = Cut::AfterAnswer;
    QByteArray m_prefix;
    int m_cuts = 0;
    int m_matched = 0;
};

} // namespace isolation::test
