// Redaction by shape, for what leaves the machine on purpose (`isolation-server bugreport`): the
// report's every line goes through here, whatever the secrets the engine happens to hold. Unlike
// the log's redaction (logging.h), which knows each secret it removes, these rules know none: they
// remove what looks like a credential (docs/security.md, "Bug reports").
#pragma once

#include <QJsonValue>
#include <QString>
#include <QStringView>

namespace isolation::reportredaction {

// The replacement of everything removed.
inline constexpr QStringView Redacted = u"[redacted]";

// Whether a key (a JSON member, a setting, an environment variable, key=value in a line) names a
// secret: its letters and digits, lower-cased, end in token, secret, password, passwd, credential,
// apikey, privatekey, accesskey, memberkey, key, cookie, authorization, signature, nonce,
// devicecode or usercode (each also plural), or it is isolation_view (the view cookie).
// "credentialStoreKind" and "tokenExpiry" are not secrets; "viewToken" and "api_key" are.
bool isSecretName(QStringView name);

// A text with these removed, in this order:
// - PEM private keys (BEGIN ... PRIVATE KEY to END ... PRIVATE KEY), whole;
// - the value of the headers Authorization, Proxy-Authorization, Cookie, Set-Cookie and
//   X-Isolation-Signature/-Nonce (to the end of the line);
// - what follows Bearer or Basic;
// - the user info of URLs (scheme://USER:PASSWORD@host keeps scheme:// and @host);
// - the value of key=value and key: value (also "key": "value", quotes kept) whose key isSecretName;
// - runs of base64 or base64url characters ([A-Za-z0-9_+-]) at least 20 long holding an upper-case
//   letter, a lower-case letter and a digit: random tokens and keys (the server credential, view
//   tokens, execd tokens, most API keys), but not words, paths, UUIDs, commit ids or image digests
//   (lower-case hex is kept: a report needs them).
// Idempotent: a redacted text redacts to itself.
QString redactText(const QString &text);

// A JSON value with every member whose key isSecretName replaced by "[redacted]" (whatever its
// type), and every string redacted as redactText does.
QJsonValue redactJson(const QJsonValue &value);

} // namespace isolation::reportredaction
