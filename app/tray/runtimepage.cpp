#include "runtimepage.h"

#include "enginemodel.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace isolation {

RuntimePage::RuntimePage(EngineModel &engine, QWidget *parent)
    : QWidget(parent)
    , m_engine(engine)
{
    setObjectName(QStringLiteral("runtimeTab"));
    auto *layout = new QVBoxLayout(this);
    auto *heading = new QLabel(QStringLiteral("<h3>%1</h3>").arg(tr("Runtime").toHtmlEscaped()), this);
    layout->addWidget(heading);
    auto *intro = new QLabel(tr("Sandboxes run in containers made by the pinned OpenSandbox runtime, which the "
                                "engine keeps running in Docker on this computer."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_form = new QFormLayout;
    m_state = addRow(QStringLiteral("runtimeState"), tr("State:"));
    m_reason = addRow(QStringLiteral("runtimeReason"), tr("Details:"));
    m_reason->setWordWrap(true);
    m_pin = addRow(QStringLiteral("runtimePin"), tr("Pinned version:"));
    m_image = addRow(QStringLiteral("runtimeImage"), tr("Runtime image:"));
    m_execdImage = addRow(QStringLiteral("runtimeExecdImage"), tr("Sandbox agent image:"));
    m_digest = addRow(QStringLiteral("runtimeDigest"), tr("Image digest:"));
    m_container = addRow(QStringLiteral("runtimeContainer"), tr("Container:"));
    m_uptime = addRow(QStringLiteral("runtimeUptime"), tr("Up for:"));
    m_restarts = addRow(QStringLiteral("runtimeRestarts"), tr("Restarts:"));
    m_sessions = addRow(QStringLiteral("runtimeSessions"), tr("Session files:"));
    layout->addLayout(m_form);

    auto *buttons = new QHBoxLayout;
    m_restart = new QPushButton(tr("Res&tart runtime"), this);
    m_restart->setObjectName(QStringLiteral("restartRuntime"));
    m_restart->setToolTip(tr("Stops and starts the runtime container. Running sandboxes keep running."));
    connect(m_restart, &QPushButton::clicked, this, &RuntimePage::restart);
    buttons->addWidget(m_restart);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    layout->addStretch(1);

    // The uptime moves while the page is on screen (an idle tray wakes for nothing else);
    // everything else follows the engine's signals.
    m_tick = new QTimer(this);
    m_tick->setInterval(1000);
    connect(m_tick, &QTimer::timeout, this, &RuntimePage::refresh);
    connect(&m_engine, &EngineModel::runtimeChanged, this, &RuntimePage::refresh);
    connect(&m_engine, &EngineModel::stateChanged, this, &RuntimePage::refresh);
    refresh();
}

void RuntimePage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
    m_tick->start();
}

void RuntimePage::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_tick->stop();
}

QLabel *RuntimePage::addRow(const QString &objectName, const QString &label)
{
    auto *value = new QLabel(this);
    value->setObjectName(objectName);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_form->addRow(label, value);
    return value;
}

QString RuntimePage::formatUptime(qint64 seconds)
{
    if (seconds < 60)
        return tr("%1 s").arg(seconds);
    if (seconds < 3600)
        return tr("%1 min %2 s").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
    if (seconds < 86400)
        return tr("%1 h %2 min").arg(seconds / 3600).arg((seconds % 3600) / 60, 2, 10, QLatin1Char('0'));
    return tr("%1 d %2 h").arg(seconds / 86400).arg((seconds % 86400) / 3600);
}

QString RuntimePage::stateText(const QString &stateName)
{
    if (stateName == QLatin1String("healthy"))
        return tr("Healthy");
    if (stateName == QLatin1String("starting"))
        return tr("Starting");
    if (stateName == QLatin1String("unhealthy"))
        return tr("Not answering");
    if (stateName == QLatin1String("restarting"))
        return tr("Restarting");
    if (stateName == QLatin1String("upgrading"))
        return tr("Upgrading");
    if (stateName == QLatin1String("docker_missing"))
        return tr("Docker is not available");
    if (stateName == QLatin1String("failed"))
        return tr("Failed");
    return tr("Not running");
}

void RuntimePage::refresh()
{
    const api::Runtime &r = m_engine.runtime();
    const bool known = m_engine.attached();
    auto text = [known](const QString &v) { return !known || v.isEmpty() ? QStringLiteral("—") : v; };
    m_state->setText(stateText(known ? r.state : QString()));
    m_reason->setText(known ? r.reason : m_engine.stateReason());
    m_pin->setText(text(r.pin));
    QString image = text(r.image);
    if (known && r.standin)
        image += QLatin1Char(' ') + tr("(offline stand-in)");
    m_image->setText(image);
    m_execdImage->setText(text(r.execdImage));
    m_digest->setText(text(r.digest));
    m_container->setText(!known || r.container.isEmpty() ? QStringLiteral("—")
                                                         : QStringLiteral("%1 (%2)").arg(r.container, r.containerId));
    m_uptime->setText(known && r.startedAt.isValid()
            ? formatUptime(qMax<qint64>(0, r.startedAt.secsTo(QDateTime::currentDateTimeUtc())))
            : QStringLiteral("—"));
    m_restarts->setText(known && !r.state.isEmpty() && r.state != QLatin1String("absent")
            ? QString::number(r.restarts)
            : QStringLiteral("—"));
    m_sessions->setText(text(r.sessionDirectory));
    const bool running = known && !r.state.isEmpty() && r.state != QLatin1String("absent");
    m_restart->setEnabled(running && !m_restarting);
    m_restart->setText(m_restarting ? tr("Restarting…") : tr("Res&tart runtime"));
}

void RuntimePage::restart()
{
    if (!m_engine.attached() || m_restarting)
        return;
    m_restarting = true;
    refresh();
    QPointer<RuntimePage> self(this);
    m_engine.client().post(QStringLiteral("/v1/runtime/restart"), {},
        [self](EngineClient::Answer) {
            if (!self)
                return;
            self->m_restarting = false;
            self->refresh();
        },
        EngineClient::LongTimeoutMs);
}

} // namespace isolation
