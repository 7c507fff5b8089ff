#include "translations.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QTranslator>

#include <memory>

namespace isolation {

namespace {
const QString kCatalogueDir = QStringLiteral(":/i18n");

struct Installed
{
    std::unique_ptr<QTranslator> ours;
    std::unique_ptr<QTranslator> qt;
};

Installed &installed()
{
    static Installed s;
    return s;
}

void uninstall(std::unique_ptr<QTranslator> &translator)
{
    if (translator) {
        QCoreApplication::removeTranslator(translator.get());
        translator.reset();
    }
}
} // namespace

QString Translations::install(const QLocale &locale)
{
    Installed &s = installed();
    uninstall(s.ours);
    uninstall(s.qt);

    auto ours = std::make_unique<QTranslator>();
    // QTranslator walks the locale's UI languages (de_AT → de, zh_Hans_CN → zh_CN, ...). Where
    // none matches, the tray speaks English, whose catalogue holds the plural forms.
    if (!ours->load(locale, QStringLiteral("isolation"), QStringLiteral("_"), kCatalogueDir)
        && !ours->load(QStringLiteral("isolation_en"), kCatalogueDir))
        return QStringLiteral("en");
    const QString language = QFileInfo(ours->filePath()).completeBaseName().mid(int(qstrlen("isolation_")));
    QCoreApplication::installTranslator(ours.get());
    s.ours = std::move(ours);

    // Qt's own strings (the buttons of standard dialogs) when the system has Qt's catalogues.
    auto qt = std::make_unique<QTranslator>();
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
            QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt.get());
        s.qt = std::move(qt);
    }
    return language;
}

QStringList Translations::available()
{
    QStringList languages;
    const QStringList files
        = QDir(kCatalogueDir).entryList({QStringLiteral("isolation_*.qm")}, QDir::Files, QDir::Name);
    for (const QString &file : files) {
        const QString language = QFileInfo(file).completeBaseName().mid(int(qstrlen("isolation_")));
        if (language != QLatin1String("en")) // the sources' language; its catalogue has plurals only
            languages << language;
    }
    return languages;
}

} // namespace isolation
