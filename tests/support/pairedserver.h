// Pairs a real engine with a running isolation-hub (file credential store under `home`, approval
// through the hub's page as a browser would) and hands back the identity it stored. The engine is
// stopped again, so a test can use the server credential and member key directly.
#pragma once

#include "pairing/serveridentity.h"

#include <QString>
#include <QUrl>

#include <optional>

namespace isolation::test {

std::optional<ServerIdentity> pairServer(const QUrl &hubUrl, const QString &home, const QString &name);

} // namespace isolation::test
