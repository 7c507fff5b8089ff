#include "credentialfilter.h"

#include <QRegularExpression>

namespace isolation {

QStringList CredentialFilter::namePatterns()
{
    return {
        QStringLiteral(".env"),
        QStringLiteral(".env.*"), // dotenv files
        QStringLiteral("*.pem"),
        QStringLiteral("*.key"),
        QStringLiteral("*.p12"),
        QStringLiteral("*.pfx"),
        QStringLiteral("*.jks"),
        QStringLiteral("*.keystore"), // private keys and key stores
        QStringLiteral("id_rsa"),
        QStringLiteral("id_dsa"),
        QStringLiteral("id_ecdsa"),
        QStringLiteral("id_ed25519"),
        QStringLiteral("id_ecdsa_sk"),
        QStringLiteral("id_ed25519_sk"), // SSH private keys (not their .pub)
        QStringLiteral(".netrc"),
        QStringLiteral("_netrc"),
        QStringLiteral(".git-credentials"),
        QStringLiteral(".npmrc"),
        QStringLiteral(".pypirc"),
        QStringLiteral(".pgpass"),
        QStringLiteral(".dockercfg"),
    };
}

QStringList CredentialFilter::pathPatterns()
{
    return {QStringLiteral(".docker/config.json"), QStringLiteral(".aws/credentials"),
        QStringLiteral(".config/gh/hosts.yml"), QStringLiteral(".kube/config")};
}

bool CredentialFilter::isCredential(const QString &path)
{
    static const QList<QRegularExpression> names = [] {
        QList<QRegularExpression> out;
        for (const QString &p : namePatterns())
            out.append(QRegularExpression(QRegularExpression::wildcardToRegularExpression(p)));
        return out;
    }();
    const QString name = path.section(QLatin1Char('/'), -1);
    for (const QRegularExpression &re : names) {
        if (re.match(name).hasMatch())
            return true;
    }
    for (const QString &tail : pathPatterns()) {
        if (path == tail || path.endsWith(QLatin1Char('/') + tail))
            return true;
    }
    return false;
}

} // namespace isolation
