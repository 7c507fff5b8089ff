// The languages the tray speaks: Qt Linguist catalogues compiled into the binary (:/i18n),
// chosen from the system locale, plus Qt's own catalogue for its standard dialogs.
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
