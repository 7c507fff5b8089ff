#include "websocketlink.h"

#include "crypto/random.h"
#include "net/tcpstream.h"

#include <QAbstractSocket>
#include <QSslSocket>

#include <cstring>

namespace isolation {

using websocket::Opcode;

namespace {

QByteArray readAllFrom(QIODevice *device)
{
    if (auto *stream = qobject_cast<TcpStream *>(device))
        return stream->takeAll();
    return device->readAll();
}

// A QAbstractSocket queues writes until the next turn of the event loop; the peer should start on
// a message while the rest of this turn runs. (A TcpStream writes at once, or when its batch ends.)
void flushNow(QIODevice *device)
{
    if (auto *socket = qobject_cast<QAbstractSocket *>(device))
        socket->flush();
}

} // namespace

WebSocketLink::WebSocketLink(
    Role role, QIODevice *device, QByteArray alreadyRead, quint64 maxMessageSize, QObject *parent)
    : QObject(parent)
    , m_role(role)
    , m_device(device)
    , m_reader(role, maxMessageSize)
    , m_alreadyRead(std::move(alreadyRead))
{
    device->setParent(this);
    m_closeTimer.setSingleShot(true);
    connect(&m_closeTimer, &QTimer::timeout, this, [this] { finish(m_closeWhy); });
}

WebSocketLink::~WebSocketLink()
{
    if (m_device) {
        disconnect(m_device, nullptr, this, nullptr);
        abortDevice(m_device);
    }
}

void WebSocketLink::start()
{
    if (m_started || !m_device)
        return;
    m_started = true;
    connect(m_device, &QIODevice::readyRead, this, &WebSocketLink::onReadyRead);
    onDeviceDisconnected(m_device, this, [this] { onDeviceGone(); });
    m_reader.append(std::exchange(m_alreadyRead, {}));
    onReadyRead();
}

QHostAddress WebSocketLink::peerAddress() const
{
    if (auto *stream = qobject_cast<TcpStream *>(m_device.data()))
        return stream->peerAddress();
    if (auto *socket = qobject_cast<QAbstractSocket *>(m_device.data()))
        return socket->peerAddress();
    return {};
}

void WebSocketLink::onReadyRead()
{
    if (!m_device || m_state == State::Closed)
        return;
    if (m_reading) {
        // Called again from inside a handler: the message it holds is a view of the reader's
        // buffer, which must not move under it. The loop below reads again when it returns.
        m_readAgain = true;
        return;
    }
    const QPointer<WebSocketLink> alive(this); // a handler may close and drop the link
    m_reading = true;
    do {
        m_readAgain = false;
        m_reader.append(readAllFrom(m_device));
        const bool more = drain();
        if (!alive)
            return;
        if (!more)
            break;
    } while (m_readAgain && m_device && m_state != State::Closed);
    m_reading = false;
}

bool WebSocketLink::drain()
{
    const QPointer<WebSocketLink> alive(this);
    websocket::FrameReader::Message message;
    while (m_state != State::Closed) {
        const auto status = m_reader.next(&message);
        if (status == websocket::FrameReader::Status::NeedMore)
            return true;
        if (status == websocket::FrameReader::Status::Error) {
            failProtocol(m_reader.errorCode(), m_reader.errorText());
            return false;
        }
        switch (message.opcode) {
        case Opcode::Binary:
            if (m_state == State::Open && m_handler) {
                m_handler(message.payload);
                if (!alive)
                    return false;
            }
            break;
        case Opcode::Text:
            failProtocol(
                websocket::CloseUnsupportedData, tr("the peer sent a text message (only binary ones are taken)"));
            return false;
        case Opcode::Ping:
            if (m_state == State::Open)
                send(Opcode::Pong, message.payload);
            break;
        case Opcode::Close:
            if (m_state == State::Closing) {
                finish(m_closeWhy);
                return false;
            }
            // Answer with the peer's code (an empty close frame when it gave none), then end.
            send(Opcode::Close,
                message.closeCode == websocket::CloseNoStatus ? QByteArray()
                                                              : websocket::closePayload(message.closeCode, {}));
            finish(message.closeReason);
            return false;
        case Opcode::Pong:
        case Opcode::Continuation:
            break;
        }
    }
    return true;
}

void WebSocketLink::onDeviceGone()
{
    if (m_state == State::Closed)
        return;
    finish(m_state == State::Closing ? m_closeWhy : tr("the connection was lost"));
}

void WebSocketLink::send(Opcode opcode, QByteArrayView payload)
{
    if (!m_device)
        return;
    QByteArray frame;
    if (m_role == Role::Client) {
        const websocket::MaskKey key = nextKey();
        frame = websocket::encodeFrame(opcode, payload, &key);
    } else {
        frame = websocket::encodeFrame(opcode, payload, nullptr);
    }
    if (auto *stream = qobject_cast<TcpStream *>(m_device.data()))
        stream->writeOwned(std::move(frame));
    else
        m_device->write(frame);
    flushNow(m_device);
}

void WebSocketLink::sendBinary(QByteArrayView payload)
{
    if (m_state == State::Open)
        send(Opcode::Binary, payload);
}

void WebSocketLink::close(quint16 code, const QString &reason)
{
    if (m_state != State::Open)
        return;
    send(Opcode::Close, websocket::closePayload(code, reason));
    m_state = State::Closing;
    m_closeWhy = reason;
    m_closeTimer.start(CloseTimeoutMs);
}

void WebSocketLink::abort()
{
    m_state = State::Closed;
    m_reported = true;
    m_closeTimer.stop();
    if (m_device) {
        disconnect(m_device, nullptr, this, nullptr);
        disconnectDevice(m_device); // the destructor cuts what is left
    }
}

void WebSocketLink::failProtocol(quint16 code, const QString &text)
{
    if (m_state == State::Open)
        send(Opcode::Close, websocket::closePayload(code, {}));
    m_protocolError = true;
    finish(tr("WebSocket protocol error: %1").arg(text));
}

void WebSocketLink::finish(const QString &why)
{
    if (m_state == State::Closed)
        return;
    m_state = State::Closed;
    m_closeTimer.stop();
    if (m_device) {
        disconnect(m_device, &QIODevice::readyRead, this, nullptr);
        disconnectDevice(m_device); // after the close frame went out
    }
    if (!std::exchange(m_reported, true))
        Q_EMIT disconnected(why);
}

websocket::MaskKey WebSocketLink::nextKey()
{
    // RFC 6455 §5.3: a fresh key for every frame, unpredictable to the page or program whose
    // bytes are masked. The DRBG is asked for 64 at a time.
    if (m_keys.empty()) {
        constexpr int Batch = 64;
        const QByteArray bytes = randomBytes(4 * Batch);
        m_keys.resize(Batch);
        std::memcpy(m_keys.data(), bytes.constData(), size_t(bytes.size()));
    }
    const websocket::MaskKey key = m_keys.back();
    m_keys.pop_back();
    return key;
}

WebSocketConnector::WebSocketConnector(QObject *parent)
    : QObject(parent)
{ }

WebSocketConnector::~WebSocketConnector()
{
    cleanup();
}

void WebSocketConnector::open(
    const QUrl &url, const HttpHeaders &headers, quint64 maxMessageSize, const QNetworkProxy &proxy)
{
    cleanup();
    m_maxMessageSize = maxMessageSize;
    const QByteArray key = websocket::newKey();
    m_reader = std::make_unique<websocket::HandshakeReader>(key);
    m_request = websocket::clientRequest(url, key, headers);
    const QString scheme = url.scheme().toLower();
    const QString host = url.host();

    if (scheme == QLatin1String("wss")) {
        auto *socket = new QSslSocket(this);
        m_device = socket;
        connect(socket, &QSslSocket::encrypted, this, &WebSocketConnector::onConnected);
        connect(socket, &QIODevice::readyRead, this, &WebSocketConnector::onReadyRead);
        const QString through = proxy.type() == QNetworkProxy::HttpProxy
            ? tr(" (through the proxy %1:%2)").arg(proxy.hostName()).arg(proxy.port())
            : QString();
        connect(socket, &QAbstractSocket::errorOccurred, this,
            [this, socket, through](QAbstractSocket::SocketError) { fail(0, socket->errorString() + through); });
        socket->setProxy(proxy);
        socket->connectToHostEncrypted(host, quint16(url.port(443)));
        return;
    }

    QHostAddress address(host);
    if (address.isNull() && host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        address = QHostAddress(QHostAddress::LocalHost);
    if (scheme != QLatin1String("ws") || address.isNull() || !address.isLoopback()) {
        const QString why
            = tr("a WebSocket URL must be wss://, or ws:// to a loopback address: %1").arg(url.toString());
        QMetaObject::invokeMethod(
            this, [this, why] { fail(0, why); }, Qt::QueuedConnection);
        return;
    }
    TcpStream *stream = TcpStream::connectTo(address, quint16(url.port(80)), this);
    m_device = stream;
    connect(stream, &TcpStream::connected, this, &WebSocketConnector::onConnected);
    connect(stream, &QIODevice::readyRead, this, &WebSocketConnector::onReadyRead);
    connect(stream, &TcpStream::disconnected, this, [this, stream] {
        fail(0,
            stream->errorString().isEmpty() ? tr("the connection closed during the WebSocket handshake")
                                            : stream->errorString());
    });
}

void WebSocketConnector::abort()
{
    cleanup();
}

void WebSocketConnector::onConnected()
{
    if (!m_device)
        return;
    m_device->write(m_request);
    flushNow(m_device);
}

void WebSocketConnector::onReadyRead()
{
    if (!m_device || !m_reader)
        return;
    const QByteArray bytes = readAllFrom(m_device);
    switch (m_reader->feed(bytes)) {
    case websocket::HandshakeReader::Status::NeedMore:
        return;
    case websocket::HandshakeReader::Status::Refused:
        fail(m_reader->status(), tr("the answer to the WebSocket handshake was HTTP %1").arg(m_reader->status()));
        return;
    case websocket::HandshakeReader::Status::Error:
        fail(0, m_reader->errorText());
        return;
    case websocket::HandshakeReader::Status::Accepted:
        break;
    }
    QIODevice *device = m_device;
    disconnect(device, nullptr, this, nullptr);
    m_device = nullptr;
    auto *link = new WebSocketLink(WebSocketLink::Role::Client, device, m_reader->rest(), m_maxMessageSize, this);
    m_reader.reset();
    Q_EMIT opened(link);
}

void WebSocketConnector::fail(int status, const QString &message)
{
    if (!m_reader)
        return; // already over
    cleanup();
    Q_EMIT failed(status, message);
}

void WebSocketConnector::cleanup()
{
    m_reader.reset();
    if (m_device) {
        QIODevice *device = m_device;
        m_device = nullptr;
        disconnect(device, nullptr, this, nullptr);
        abortDevice(device);
        device->deleteLater();
    }
}

} // namespace isolation
