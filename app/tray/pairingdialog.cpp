#include "pairingdialog.h"

#include "qrmatrix.h"

#include "enginemodel.h"

#include <QApplication>
#include <QClipboard>
#include <QDesktopServices>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QImage>
#include <QJsonObject>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QPointer>
#include <QVBoxLayout>

namespace isolation {

PairingDialog::PairingDialog(EngineModel &engine, QWidget *parent)
    : QDialog(parent)
    , m_engine(engine)
{
    setObjectName(QStringLiteral("pairingDialog"));
    setWindowTitle(tr("Pair this computer"));
    setAttribute(Qt::WA_DeleteOnClose);

    auto *layout = new QVBoxLayout(this);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("pairingMessage"));
    m_message->setWordWrap(true);
    layout->addWidget(m_message);

    m_code = new QLabel(this);
    m_code->setObjectName(QStringLiteral("pairingCode"));
    m_code->setAccessibleName(tr("Pairing code"));
    QFont big = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    big.setPointSize(32);
    big.setBold(true);
    m_code->setFont(big);
    m_code->setAlignment(Qt::AlignCenter);
    m_code->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_code);

    m_qr = new QLabel(this);
    m_qr->setObjectName(QStringLiteral("pairingQr"));
    m_qr->setAccessibleName(tr("QR code of the approval link"));
    m_qr->setAlignment(Qt::AlignCenter);
    layout->addWidget(m_qr);

    m_countdown = new QLabel(this);
    m_countdown->setObjectName(QStringLiteral("pairingCountdown"));
    m_countdown->setAlignment(Qt::AlignCenter);
    layout->addWidget(m_countdown);

    auto *buttons = new QHBoxLayout;
    m_open = new QPushButton(tr("&Open in browser"), this);
    m_open->setObjectName(QStringLiteral("openInBrowser"));
    m_copy = new QPushButton(tr("&Copy link"), this);
    m_copy->setObjectName(QStringLiteral("copyLink"));
    m_retry = new QPushButton(tr("&Try again"), this);
    m_retry->setObjectName(QStringLiteral("retryPairing"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("cancelPairing"));
    buttons->addWidget(m_open);
    buttons->addWidget(m_copy);
    buttons->addStretch(1);
    buttons->addWidget(m_retry);
    buttons->addWidget(m_cancel);
    layout->addLayout(buttons);

    connect(m_open, &QPushButton::clicked, this, [this] { QDesktopServices::openUrl(QUrl(m_link)); });
    connect(m_copy, &QPushButton::clicked, this, [this] {
        QApplication::clipboard()->setText(m_link);
        m_copy->setText(tr("Copied"));
    });
    connect(m_retry, &QPushButton::clicked, this, &PairingDialog::begin);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_engine.client().call("DELETE", QStringLiteral("/v1/pair"), {}, {}, 10000);
        reject();
    });
    connect(&m_engine, &EngineModel::pairingChanged, this, &PairingDialog::update);
    connect(&m_engine, &EngineModel::stateChanged, this, &PairingDialog::update);
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &PairingDialog::tick);
    update();
}

void PairingDialog::begin()
{
    m_link.clear();
    m_qr->clear();
    if (!m_engine.attached()) {
        m_message->setText(m_engine.stateReason());
        return;
    }
    // The engine answers once the hub issued a code (or refused); its events show the rest.
    m_asking = true;
    update();
    QPointer<PairingDialog> self(this);
    m_engine.client().post(QStringLiteral("/v1/pair"), {}, [self](EngineClient::Answer r) {
        if (!self)
            return;
        self->m_asking = false;
        if (!r) {
            self->m_message->setText(describe(r.error()));
            self->m_retry->setVisible(true);
            return;
        }
        self->update();
    }, 60000);
}

void PairingDialog::showQr(const QString &link)
{
    const QrMatrix matrix = QrMatrix::encode(link.toUtf8());
    if (matrix.isNull()) {
        m_qr->clear();
        return;
    }
    const int quiet = 4;
    QImage image(matrix.size + 2 * quiet, matrix.size + 2 * quiet, QImage::Format_Mono);
    image.fill(1);
    for (int y = 0; y < matrix.size; ++y) {
        for (int x = 0; x < matrix.size; ++x)
            image.setPixel(x + quiet, y + quiet, matrix.dark(x, y) ? 0 : 1);
    }
    const int side = 6 * image.width();
    QPixmap pixmap = QPixmap::fromImage(image.scaled(side, side, Qt::KeepAspectRatio, Qt::FastTransformation));
    pixmap.setDevicePixelRatio(1.0);
    m_qr->setPixmap(pixmap);
}

void PairingDialog::update()
{
    const api::Pairing &s = m_engine.pairing();
    const QString state = m_asking && (s.state.isEmpty() || s.state == QLatin1String("idle")) ? QStringLiteral("starting") : s.state;
    const bool waiting = state == QLatin1String("waiting_for_approval");
    m_open->setEnabled(waiting);
    m_copy->setEnabled(waiting);
    m_retry->setVisible(
        state == QLatin1String("denied") || state == QLatin1String("expired") || state == QLatin1String("failed"));
    if (waiting) {
        const QString link = s.verificationUriComplete;
        if (link != m_link) {
            m_link = link;
            showQr(link);
        }
        m_code->setText(s.userCode);
        m_message->setText(tr("Open the link (or scan the code) and approve this computer. Check that the page "
                              "shows this code:"));
        m_expiresAt = s.expiresAt;
        if (!m_tick.isActive())
            m_tick.start();
        tick();
        return;
    }
    m_tick.stop();
    m_countdown->clear();
    if (state == QLatin1String("starting")) {
        m_message->setText(tr("Asking %1 for a code…").arg(m_engine.status().hub));
        m_code->setText(QStringLiteral("····-····"));
    } else if (state == QLatin1String("storing")
        || (state == QLatin1String("approved") && s.paired)) {
        m_message->setText(state == QLatin1String("storing")
                ? tr("Approved. Saving this computer's keys…")
                : tr("Paired. This computer is now connected to Isolation."));
        m_qr->clear();
        m_cancel->setText(tr("Close"));
    } else if (!state.isEmpty() && state != QLatin1String("idle")) {
        m_message->setText(s.reason);
        m_code->setText(QString());
        m_qr->clear();
    }
}

void PairingDialog::tick()
{
    const qint64 left = QDateTime::currentDateTimeUtc().secsTo(m_expiresAt);
    if (left <= 0) {
        m_countdown->setText(tr("The code has expired"));
        return;
    }
    m_countdown->setText(tr("The code expires in %1:%2").arg(left / 60).arg(left % 60, 2, 10, QLatin1Char('0')));
}

} // namespace isolation
