// "Pair this computer": the code in large type, a QR code of the approval link, Open in
// browser, Copy link, a countdown to expiry and Cancel. Drives the engine's pairing flow.
#pragma once

#include <QDateTime>
#include <QDialog>
#include <QTimer>

class QLabel;
class QPushButton;

namespace isolation {

class EngineModel;

class PairingDialog final : public QDialog
{
    Q_OBJECT
public:
    explicit PairingDialog(EngineModel &engine, QWidget *parent = nullptr);

    // Starts a pairing in the engine and shows its progress.
    void begin();

private:
    void update();
    void tick();
    void showQr(const QString &link);

    EngineModel &m_engine;
    bool m_asking = false; // POST /v1/pair is on its way
    QLabel *m_code = nullptr;
    QLabel *m_qr = nullptr;
    QLabel *m_message = nullptr;
    QLabel *m_countdown = nullptr;
    QPushButton *m_open = nullptr;
    QPushButton *m_copy = nullptr;
    QPushButton *m_cancel = nullptr;
    QPushButton *m_retry = nullptr;
    QTimer m_tick;
    QDateTime m_expiresAt;
    QString m_link;
};

} // namespace isolation
