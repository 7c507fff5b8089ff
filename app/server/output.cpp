#include "output.h"

#include "exitcodes.h"

#include "core/paths.h"

#include <QHash>
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

int exitCodeOf(const QString &errorCode)
{
    // The LocalAPI's error codes (docs/cli.md, "Errors") → exit codes.
    static const QHash<QString, int> codes {
        {QStringLiteral("moved_on"), exitcode::MovedOn},
        {QStringLiteral("conflict"), exitcode::Conflict},
        {QStringLiteral("not_paired"), exitcode::NotPaired},
        {QStringLiteral("refused"), exitcode::NotNow},
        {QStringLiteral("in_use"), exitcode::NotNow},
        {QStringLiteral("worktree_missing"), exitcode::NotNow},
        {QStringLiteral("bad_request"), exitcode::Usage},
        {QStringLiteral("invalid"), exitcode::Usage},
        {QStringLiteral("too_large"), exitcode::Usage},
        {QStringLiteral("no_space"), exitcode::Storage},
        {QStringLiteral("read_only"), exitcode::Storage},
        {QStringLiteral("permission_denied"), exitcode::Storage},
        {QStringLiteral("cancelled"), exitcode::Interrupted},
    };
    return codes.value(errorCode, exitcode::Failure);
}

int localApiFailure(const LocalApiError &e)
{
    error(e.message);
    switch (e.code) {
    case LocalApiError::Code::NotRunning:
    case LocalApiError::Code::Stopped:
        return exitcode::NotRunning;
    case LocalApiError::Code::Transport:
        break;
    case LocalApiError::Code::Api:
        return exitCodeOf(e.errorCode);
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
