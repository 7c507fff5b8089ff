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
    const PageAnswer form = wait(nam.get(QNetworkRequest(withCode)));
    if (form.status != 200)
        return form;
    static const QRegularExpression csrf(QStringLiteral("name=\"csrf\" value=\"([^\"]+)\""));
    const QString token = csrf.match(form.html).captured(1);
    QUrlQuery fields;
    fields.addQueryItem(QStringLiteral("csrf"), token);
    fields.addQueryItem(QStringLiteral("user_code"), code);
    fields.addQueryItem(QStringLiteral("action"), approve ? QStringLiteral("approve") : QStringLiteral("deny"));
    QNetworkRequest post(page);
    post.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/x-www-form-urlencoded"));
    return wait(nam.post(post, fields.toString(QUrl::FullyEncoded).toUtf8()));
}

} // namespace isolation::test
