#include "finishflow.h"

#include "sessionscontroller.h"

#include <QAbstractButton>
#include <QCoreApplication>
#include <QMessageBox>
#include <QPointer>

namespace isolation {

void confirmFinish(SessionsController &sessions, const QString &id, QWidget *parent)
{
    auto *ask = new QMessageBox(QMessageBox::Question, QCoreApplication::translate("isolation::FinishFlow", "Finish session"),
        QCoreApplication::translate("isolation::FinishFlow", "Finish session %1? Its sandbox is deleted and its folder removed from this computer.").arg(id),
        QMessageBox::Yes | QMessageBox::Cancel, parent);
    ask->setObjectName(QStringLiteral("finishQuestion"));
    ask->setAttribute(Qt::WA_DeleteOnClose);
    ask->button(QMessageBox::Yes)->setText(QCoreApplication::translate("isolation::FinishFlow", "&Finish"));
    QPointer<SessionsController> controller(&sessions);
    QPointer<QWidget> owner(parent);
    QObject::connect(ask, &QMessageBox::accepted, &sessions, [controller, owner, id] {
        controller->finish(id, false, [controller, owner, id](Result<void> r) {
            if (!controller || r)
                return;
            if (r.error().code != Error::Code::InvalidInput) {
                QMessageBox::warning(owner, QCoreApplication::translate("isolation::FinishFlow", "Finish session"), r.error().message);
                return;
            }
            auto *discard = new QMessageBox(QMessageBox::Warning, QCoreApplication::translate("isolation::FinishFlow", "Unsaved work"),
                QCoreApplication::translate("isolation::FinishFlow", "%1\n\nDiscard the unsaved work and finish?").arg(r.error().message),
                QMessageBox::Discard | QMessageBox::Cancel, owner);
            discard->setObjectName(QStringLiteral("discardQuestion"));
            discard->setAttribute(Qt::WA_DeleteOnClose);
            QObject::connect(discard, &QMessageBox::finished, controller, [controller, owner, discard, id](int) {
                if (discard->clickedButton() != discard->button(QMessageBox::Discard))
                    return;
                controller->finish(id, true, [owner](Result<void> done) {
                    if (!done)
                        QMessageBox::warning(owner, QCoreApplication::translate("isolation::FinishFlow", "Finish session"),
                            done.error().message);
                });
            });
            discard->open();
        });
    });
    ask->open();
}

} // namespace isolation
