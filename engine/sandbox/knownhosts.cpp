#include "knownhosts.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>

namespace isolation {

namespace {

// `*` any run of characters, `?` any one (OpenSSH's match_pattern).
bool glob(QStringView pattern, QStringView text)
{
    while (!pattern.isEmpty()) {
        const QChar p = pattern.front();
        if (p == QLatin1Char('*')) {
            pattern = pattern.mid(1);
            if (pattern.isEmpty())
                return true;
            for (qsizetype i = 0; i <= text.size(); ++i) {
                if (glob(pattern, text.mid(i)))
                    return true;
            }
            return false;
        }
        if (text.isEmpty() || (p != QLatin1Char('?') && p != text.front()))
            return false;
        pattern = pattern.mid(1);
        text = text.mid(1);
    }
    return text.isEmpty();
}

bool hashedMatch(const QString &pattern, const QString &name)
{
    // |1|base64(salt)|base64(HMAC-SHA1(salt, name))
    const QStringList parts = pattern.split(QLatin1Char('|'));
    if (parts.size() != 4 || parts.at(1) != QLatin1String("1"))
        return false;
    const QByteArray salt = QByteArray::fromBase64(parts.at(2).toLatin1());
    const QByteArray hash = QByteArray::fromBase64(parts.at(3).toLatin1());
    return !salt.isEmpty() && QMessageAuthenticationCode::hash(name.toUtf8(), salt, QCryptographicHash::Sha1) == hash;
}

bool readString(QByteArrayView &in, QByteArrayView *out)
{
    if (in.size() < 4)
        return false;
    const quint32 length = (quint32(quint8(in[0])) << 24) | (quint32(quint8(in[1])) << 16)
        | (quint32(quint8(in[2])) << 8) | quint32(quint8(in[3]));
    if (length > quint32(in.size() - 4))
        return false;
    *out = in.sliced(4, length);
    in = in.sliced(4 + length);
    return true;
}

} // namespace

QString KnownHosts::lookupName(const QString &host, int port)
{
    const QString name = host.toLower();
    if (port <= 0 || port == 22)
        return name;
    return QStringLiteral("[%1]:%2").arg(name).arg(port);
}

QString KnownHosts::fingerprint(QByteArrayView keyBlob)
{
    return QStringLiteral("SHA256:")
        + QString::fromLatin1(
            QCryptographicHash::hash(keyBlob, QCryptographicHash::Sha256).toBase64(QByteArray::OmitTrailingEquals));
}

QString KnownHosts::keyTypeOf(QByteArrayView keyBlob)
{
    QByteArrayView type;
    if (!readString(keyBlob, &type))
        return {};
    return QString::fromLatin1(type);
}

KnownHosts KnownHosts::parse(QByteArrayView text, QString *error)
{
    KnownHosts out;
    int number = 0;
    for (QByteArrayView line : text.toByteArray().split('\n')) {
        ++number;
        line = line.trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const QList<QByteArray> fields = line.toByteArray().simplified().split(' ');
        qsizetype at = 0;
        Entry entry;
        bool authority = false;
        if (fields.at(0).startsWith('@')) {
            if (fields.at(0) == "@revoked") {
                entry.revoked = true;
            } else if (fields.at(0) == "@cert-authority") {
                authority = true;
            } else {
                if (error)
                    *error = QStringLiteral("known hosts, line %1: unknown marker %2")
                                 .arg(number)
                                 .arg(QString::fromUtf8(fields.at(0)));
                return {};
            }
            ++at;
        }
        if (fields.size() < at + 3) {
            if (error)
                *error = QStringLiteral("known hosts, line %1: not \"host keytype base64key\"").arg(number);
            return {};
        }
        for (const QString &pattern : QString::fromUtf8(fields.at(at)).split(QLatin1Char(','), Qt::SkipEmptyParts))
            entry.patterns << (pattern.startsWith(QLatin1Char('|')) ? pattern
                                                                    : pattern.toLower()); // base64 keeps its case
        entry.keyType = QString::fromUtf8(fields.at(at + 1));
        auto decoded = QByteArray::fromBase64Encoding(fields.at(at + 2), QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded || decoded.decoded.isEmpty() || keyTypeOf(decoded.decoded) != entry.keyType
            || entry.patterns.isEmpty()) {
            if (error)
                *error = QStringLiteral("known hosts, line %1: the key is not a %2 key in base64")
                             .arg(number)
                             .arg(entry.keyType);
            return {};
        }
        entry.key = decoded.decoded;
        if (!authority)
            out.m_entries.append(entry);
    }
    if (error)
        error->clear();
    return out;
}

bool KnownHosts::matches(const Entry &entry, const QString &name)
{
    bool positive = false;
    for (const QString &pattern : entry.patterns) {
        if (pattern.startsWith(QLatin1Char('|'))) {
            positive = positive || hashedMatch(pattern, name);
        } else if (pattern.startsWith(QLatin1Char('!'))) {
            if (glob(QStringView(pattern).mid(1), name))
                return false; // a negated match excludes the host whatever else matches
        } else {
            positive = positive || glob(pattern, name);
        }
    }
    return positive;
}

KnownHosts::Check KnownHosts::check(const QString &host, int port, QByteArrayView keyBlob) const
{
    const QString name = lookupName(host, port);
    Check out;
    bool matched = false;
    for (const Entry &entry : m_entries) {
        if (!matches(entry, name))
            continue;
        const bool same = entry.key == keyBlob;
        if (entry.revoked) {
            if (same) {
                out.verdict = Verdict::Revoked;
                return out;
            }
            continue;
        }
        out.known << entry.keyType + QLatin1Char(' ') + fingerprint(entry.key);
        matched = matched || same;
    }
    out.verdict = matched ? Verdict::Match : out.known.isEmpty() ? Verdict::Unknown : Verdict::Mismatch;
    return out;
}

bool KnownHosts::knows(const QString &host, int port) const
{
    const QString name = lookupName(host, port);
    for (const Entry &entry : m_entries) {
        if (!entry.revoked && matches(entry, name))
            return true;
    }
    return false;
}

} // namespace isolation
