// "Finish…" a session, from the tray menu or the Sessions tab: asked once; when the engine
// refuses because of unsaved work, asked again whether to discard it. Never blocks (open()).
#pragma once

#include <QString>

class QWidget;

namespace isolation {

class SessionsController;

void confirmFinish(SessionsController &sessions, const QString &id, QWidget *parent = nullptr);

} // namespace isolation
