// libFuzzer target: view token parsing and verification (engine/views/viewtoken). The first byte
// chooses the mode: 0 takes the rest as a token as it would come in a URL; 1 signs the rest as
// claims JSON with the right key (so the fuzzer reaches the claim checks behind the signature).
// Invariants: anything accepted names this server, lives at most an hour and is not expired;
// verification never accepts what decoding refuses; nothing crashes or leaks.
#include "fuzzsupport.h"

#include <cstddef>
#include <cstdint>

using namespace isolation;
using namespace isolation::fuzz;

namespace {

QByteArray signRaw(const QByteArray &claimsJson)
{
    const QByteArray encoded = claimsJson.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    const QByteArray message = QByteArray(ViewToken::SigningPrefix) + '\n' + encoded;
    const QByteArray signature = ed25519Sign(hubKey().privateKey.view(), message).value();
    return encoded + '.' + signature.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

void check(const QByteArray &token)
{
    const auto verified = ViewToken::verify(token, hubKey().publicKey, kServer, kNow);
    const auto decoded = ViewToken::decodeUnverified(token);
    if (!verified)
        return;
    const ViewClaims &c = verified.value();
    if (!decoded || !(decoded.value() == c))
        broken("verify and decode disagree");
    if (c.serverId != kServer || c.expiresAt <= kNow || c.expiresAt - c.issuedAt > ViewToken::MaxLifetimeSeconds
        || c.issuedAt > kNow + ViewToken::AllowedSkewSeconds || !ViewToken::isViewId(c.viewId))
        broken("accepted claims out of bounds");
    if (c.kind == ViewKind::Preview ? (c.port < 1 || c.port > 65535) : c.port != 0)
        broken("accepted kind and port inconsistent");
    if (token.size() > ViewToken::MaxTokenBytes)
        broken("accepted an oversized token");
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    initialise();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 4096)
        return 0;
    const QByteArray rest(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    if (data[0] % 2 == 0)
        check(rest);
    else
        check(signRaw(rest));
    return 0;
}
