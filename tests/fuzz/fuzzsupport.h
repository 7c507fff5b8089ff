// What the fuzz targets share: a Qt core application, quiet logs, a fixed hub key pair, a
// fixed clock and server id, so that every run of an input does the same.
#pragma once

#include "core/clock.h"
#include "crypto/ed25519.h"
#include "views/viewtoken.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QLoggingCategory>

#include <cstdio>
#include <cstdlib>

namespace isolation::fuzz {

inline constexpr qint64 kNow = 1'700'000'000;
inline const QString kServer = QStringLiteral("srv_fuzz");
inline const QString kView = QStringLiteral("v0123456789abcdef01234567");

// An invariant broke: libFuzzer records the input as a crash.
[[noreturn]] inline void broken(const char *what)
{
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}

inline void initialise()
{
    static int argc = 1;
    static char name[] = "fuzz";
    static char *argv[] = {name, nullptr};
    static QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("*=false"));
}

inline const Ed25519KeyPair &hubKey()
{
    static const Ed25519KeyPair key = [] {
        const QByteArray seed(32, '\x42');
        return Ed25519KeyPair {SecureBytes(seed), ed25519PublicFromPrivate(seed).value()};
    }();
    return key;
}

inline ViewClaims claims()
{
    ViewClaims c;
    c.viewId = kView;
    c.sessionId = QStringLiteral("s1");
    c.serverId = kServer;
    c.kind = ViewKind::Preview;
    c.port = 8000;
    c.issuedAt = kNow - 10;
    c.expiresAt = kNow + 600;
    c.nonce = QByteArray(16, '\x07');
    return c;
}

} // namespace isolation::fuzz
