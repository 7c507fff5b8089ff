// The languages the tray and the engine speak: Qt Linguist catalogues compiled into core (:/i18n),
// chosen from the locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), plus Qt's own catalogue for its
// standard dialogs. `isolation-server up` installs them so the state reasons and errors the tray
// shows read in the user's language; the CLI's own output stays English.
#pragma once

#include <QLocale>
#include <QStringList>

namespace isolation {

class Translations final
{
public:
    // Installs the catalogues that best match `locale` (replacing any installed before) and
    // returns the language chosen: "de", "zh_CN", ... or "en" when the tray speaks its source
    // language (English) because no catalogue matches.
    static QString install(const QLocale &locale = QLocale::system());
    // The languages with a catalogue, besides English.
    static QStringList available();
};

} // namespace isolation
