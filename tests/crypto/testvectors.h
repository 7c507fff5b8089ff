// Reading the known-answer files in tests/data (Wycheproof JSON, RFC 9180 text) for the crypto tests.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace testvectors {

// A Wycheproof file as a JSON object; empty when it cannot be read (the tests' counts then fail).
inline QJsonObject wycheproof(const QString &fileName)
{
    QFile file(QStringLiteral(ISOLATION_TEST_DATA "/wycheproof/") + fileName);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

inline QByteArray hex(const QJsonValue &value)
{
    return QByteArray::fromHex(value.toString().toLatin1());
}

inline QByteArray caseName(const QJsonObject &test)
{
    return "tcId " + QByteArray::number(test[QStringLiteral("tcId")].toInt()) + " ("
        + test[QStringLiteral("comment")].toString().toUtf8() + ")";
}

} // namespace testvectors
