#include "browserapproval.h"

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkCookieJar>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QUrlQuery>

namespace isolation::test {

namespace {

PageAnswer wait(QNetworkReply *reply)
{
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    PageAnswer a {
        reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), QString::fromUtf8(reply->readAll())};
    reply->deleteLater();
    return a;
}

} // namespace

PageAnswer submitApprovalPage(const QUrl &appUrl, const QString &code, bool approve)
{
    QNetworkAccessManager nam;
    nam.setCookieJar(new QNetworkCookieJar(&nam));
    QUrl page = appUrl;
    page.setPath(QStringLiteral("/pair"));
    QUrl withCode = page;
    withCode.setQuery(QStringLiteral("code=") + code);
    PageAnswer answer = wait(nam.get(QNetworkRequest(withCode)));
    if (answer.status != 200)
        return answer;
    static const QRegularExpression csrf(QStringLiteral("name=\"csrf\" value=\"([^\"]+)\""));
    const QByteArray origin = appUrl.adjusted(QUrl::RemovePath | QUrl::RemoveQuery).toString().toUtf8();
    const auto submit = [&](const QString &action) {
        QUrlQuery fields;
        fields.addQueryItem(QStringLiteral("csrf"), csrf.match(answer.html).captured(1));
        fields.addQueryItem(QStringLiteral("user_code"), code);
        fields.addQueryItem(QStringLiteral("action"), action);
        QNetworkRequest post(page);
        post.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/x-www-form-urlencoded"));
        post.setRawHeader("Origin", origin);
        return wait(nam.post(post, fields.toString(QUrl::FullyEncoded).toUtf8()));
    };
    answer = submit(QStringLiteral("review")); // the page naming the computer
    if (answer.status != 200)
        return answer;
    return submit(approve ? QStringLiteral("approve") : QStringLiteral("deny"));
}

} // namespace isolation::test
