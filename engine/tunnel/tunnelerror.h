// The tunnel module's error: why a connection attempt failed or a link dropped.
#pragma once

#include <QString>

#include <utility>

namespace isolation {

struct TunnelError
{
    enum class Code {
        InvalidConfig, // the hub URL or identity cannot work (e.g. ws:// to a remote host); no retry
        Unauthorized, // the hub refused the credential or signature (HTTP 401)
        Unavailable, // the hub cannot be reached, the link dropped or went silent
        Protocol, // the peer broke HTTP/2 or WebSocket rules
    };

    Code code = Code::Unavailable;
    QString message;

    // Unauthorized is retried too (a credential may be restored hub-side) but is shown as such.
    bool retryable() const { return code != Code::InvalidConfig; }

    static TunnelError invalidConfig(QString m) { return {Code::InvalidConfig, std::move(m)}; }
    static TunnelError unauthorized(QString m) { return {Code::Unauthorized, std::move(m)}; }
    static TunnelError unavailable(QString m) { return {Code::Unavailable, std::move(m)}; }
    static TunnelError protocol(QString m) { return {Code::Protocol, std::move(m)}; }
};

QString tunnelErrorCodeName(TunnelError::Code code);

} // namespace isolation
