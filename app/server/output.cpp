#include "output.h"

#include "exitcodes.h"

#include "core/paths.h"

#include <QJsonDocument>

#include <cstdio>

namespace isolation::out {

void line(const QString &text)
{
    const QByteArray bytes = text.toUtf8() + '\n';
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

void json(const QJsonObject &object)
{
    const QByteArray bytes = QJsonDocument(object).toJson(QJsonDocument::Indented);
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

void error(const QString &text)
{
    const QByteArray bytes = "isolation-server: " + text.toUtf8() + '\n';
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stderr);
}

int usage(const QString &text)
{
    error(text + QStringLiteral(" (see isolation-server --help)"));
    return exitcode::Usage;
}

int fail(const QString &text)
{
    error(text);
    return exitcode::Failure;
}

int localApiFailure(const LocalApiError &e)
{
    error(e.message);
    switch (e.code) {
    case LocalApiError::Code::NotRunning:
        return exitcode::NotRunning;
    case LocalApiError::Code::Transport:
        break;
    case LocalApiError::Code::Api:
        if (e.errorCode == QLatin1String("moved_on"))
            return exitcode::MovedOn;
        if (e.errorCode == QLatin1String("conflict"))
            return exitcode::Conflict;
        if (e.errorCode == QLatin1String("not_paired"))
            return exitcode::NotPaired;
        if (e.errorCode == QLatin1String("refused"))
            return exitcode::NotNow;
        break;
    }
    return exitcode::Failure;
}

Result<LocalApiClient> client()
{
    auto paths = Paths::resolve();
    if (!paths)
        return paths.error();
    return LocalApiClient(paths.value().socketPath());
}

Result<LocalApiClient> patientClient()
{
    auto paths = Paths::resolve();
    if (!paths)
        return paths.error();
    return LocalApiClient(paths.value().socketPath(), 0);
}

} // namespace isolation::out
