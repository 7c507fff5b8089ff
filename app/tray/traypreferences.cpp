#include "traypreferences.h"

#include "core/settings.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

namespace isolation {

namespace {
const QString kEntry = QStringLiteral("io.isolation.Tray.desktop");
} // namespace

TrayPreferences::TrayPreferences(Settings &settings)
    : m_settings(settings)
{ }

QStringList TrayPreferences::notificationKinds()
{
    return {
        QStringLiteral("moved_on"), QStringLiteral("conflict"), QStringLiteral("unpaired"), QStringLiteral("runtime")};
}

bool TrayPreferences::notifies(const QString &kind) const
{
    return m_settings.value(QStringLiteral("tray/notify/") + kind, true).toBool();
}

void TrayPreferences::setNotifies(const QString &kind, bool on)
{
    m_settings.setValue(QStringLiteral("tray/notify/") + kind, on);
}

IconStyle TrayPreferences::iconStyle() const
{
    const QString s = m_settings.value(QStringLiteral("tray/iconStyle")).toString();
    if (s == QLatin1String("monochrome-dark"))
        return IconStyle::MonochromeDark;
    if (s == QLatin1String("monochrome-light"))
        return IconStyle::MonochromeLight;
    return IconStyle::Colour;
}

void TrayPreferences::setIconStyle(IconStyle style)
{
    m_settings.setValue(QStringLiteral("tray/iconStyle"),
        style == IconStyle::MonochromeDark        ? QStringLiteral("monochrome-dark")
            : style == IconStyle::MonochromeLight ? QStringLiteral("monochrome-light")
                                                  : QStringLiteral("colour"));
}

QString TrayPreferences::autostartFile()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QStringLiteral("/autostart/")
        + kEntry;
}

bool TrayPreferences::launchesAtLogin()
{
    return QFileInfo::exists(autostartFile());
}

bool TrayPreferences::setLaunchAtLogin(bool on, QString *error)
{
    const QString file = autostartFile();
    if (!on) {
        if (QFile::exists(file) && !QFile::remove(file)) {
            *error = QCoreApplication::translate("isolation::TrayPreferences", "Cannot remove %1").arg(file);
            return false;
        }
        return true;
    }
    // The package installs the entry to copy (with its translations); a build run from its tree
    // writes one that starts this very binary.
    QByteArray entry;
    const QString packaged
        = QStandardPaths::locate(QStandardPaths::GenericDataLocation, QStringLiteral("isolation/autostart/") + kEntry);
    QFile source(packaged);
    if (!packaged.isEmpty() && source.open(QIODevice::ReadOnly))
        entry = source.readAll();
    if (entry.isEmpty()) {
        entry = "[Desktop Entry]\nType=Application\nName=Isolation\nExec="
            + QCoreApplication::applicationFilePath().toUtf8()
            + "\nIcon=io.isolation.Tray\nTerminal=false\nStartupNotify=false\n";
    }
    if (!entry.endsWith('\n'))
        entry += '\n';
    entry += "X-GNOME-Autostart-enabled=true\n";
    QDir().mkpath(QFileInfo(file).path());
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(entry) != entry.size() || !out.commit()) {
        *error = QCoreApplication::translate("isolation::TrayPreferences", "Cannot write %1: %2")
                     .arg(file, out.errorString());
        return false;
    }
    return true;
}

} // namespace isolation
