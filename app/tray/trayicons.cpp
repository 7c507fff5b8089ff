#include "trayicons.h"

#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QRegularExpression>
#include <QSvgRenderer>

namespace isolation {

namespace {
QString iconFile(EngineState state, TrayBadge badge);

// The same drawing in one colour: every colour becomes the glyph's, white marks inside the badge
// become the panel's. Rendered at the sizes panels ask for (and their high-DPI doubles).
QIcon monochrome(const QString &file, IconStyle style)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return QIcon(file);
    QString svg = QString::fromUtf8(f.readAll());
    const QString glyph = style == IconStyle::MonochromeDark ? QStringLiteral("#202020") : QStringLiteral("#f2f2f2");
    const QString panel = style == IconStyle::MonochromeDark ? QStringLiteral("#f2f2f2") : QStringLiteral("#202020");
    svg.replace(QStringLiteral("#ffffff"), QStringLiteral("@panel@"));
    svg.replace(QRegularExpression(QStringLiteral("#[0-9a-fA-F]{6}")), glyph);
    svg.replace(QStringLiteral("@panel@"), panel);
    QSvgRenderer renderer(svg.toUtf8());
    QIcon icon;
    for (int size : {16, 22, 24, 32, 44, 48, 64, 128}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        renderer.render(&painter);
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}
} // namespace

QIcon stateIcon(EngineState state, TrayBadge badge, IconStyle style)
{
    const QString file = iconFile(state, badge);
    return style == IconStyle::Colour ? QIcon(file) : monochrome(file, style);
}

namespace {
QString iconFile(EngineState state, TrayBadge badge)
{
    // The workspace badges matter only while the engine can act on them.
    if (state == EngineState::Online || state == EngineState::Reconnecting) {
        switch (badge) {
        case TrayBadge::Conflict:
            return QStringLiteral(":/icons/tray-conflict.svg");
        case TrayBadge::MovedOn:
            return QStringLiteral(":/icons/tray-moved-on.svg");
        case TrayBadge::Working:
            return QStringLiteral(":/icons/tray-working.svg");
        case TrayBadge::None:
            break;
        }
    }
    switch (state) {
    case EngineState::Online:
        return QStringLiteral(":/icons/tray-online.svg");
    case EngineState::Reconnecting:
    case EngineState::Pairing:
        return QStringLiteral(":/icons/tray-reconnecting.svg");
    case EngineState::Error:
        return QStringLiteral(":/icons/tray-error.svg");
    case EngineState::Stopped:
    case EngineState::NotPaired:
    case EngineState::Disconnected:
        break;
    }
    return QStringLiteral(":/icons/tray-not-paired.svg");
}
} // namespace

QIcon appIcon()
{
    return QIcon(QStringLiteral(":/icons/isolation.svg"));
}

} // namespace isolation
