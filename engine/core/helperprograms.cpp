#include "helperprograms.h"

#include "core/helpersfrombin.h"

#include <QCoreApplication>
#include <QDir>

namespace isolation::helpers {

namespace {

QString &chosen()
{
    static QString directory;
    return directory;
}

} // namespace

QString directory()
{
    if (!chosen().isEmpty())
        return chosen();
    return QDir::cleanPath(
        QCoreApplication::applicationDirPath() + QLatin1Char('/') + QStringLiteral(ISOLATION_HELPERS_FROM_BIN));
}

QString program(const QString &name)
{
    return directory() + QLatin1Char('/') + name;
}

void setDirectory(const QString &directory)
{
    chosen() = QDir::cleanPath(directory);
}

} // namespace isolation::helpers
