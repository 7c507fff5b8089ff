#include "runtimepage.h"

#include "engine.h"
#include "runtime/runtimemanager.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace isolation {

RuntimePage::RuntimePage(Engine &engine, QWidget *parent)
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
    connect(&m_engine, &Engine::runtimeChanged, this, &RuntimePage::refresh);
    connect(&m_engine, &Engine::runtimeChanged, this, [this] {
        if (isVisible() && m_engine.runtime())
            m_engine.runtime()->setWatched(true); // a runtime that came while the page shows
    });
    connect(&m_engine, &Engine::stateChanged, this, &RuntimePage::refresh);
    refresh();
}

void RuntimePage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // On screen, the state shown is checked at the runtime's full pace; off screen, a healthy
    // runtime is checked only as often as the heartbeat goes.
    if (RuntimeManager *runtime = m_engine.runtime())
        runtime->setWatched(true);
    refresh();
    m_tick->start();
}

void RuntimePage::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    if (RuntimeManager *runtime = m_engine.runtime())
        runtime->setWatched(false);
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
    const QJsonObject s = m_engine.runtimeStatus();
    auto text = [&s](const char *key) {
        const QString v = s.value(QLatin1String(key)).toString();
        return v.isEmpty() ? QStringLiteral("—") : v;
    };
    m_state->setText(stateText(s.value(QStringLiteral("state")).toString()));
    m_reason->setText(s.value(QStringLiteral("reason")).toString());
    m_pin->setText(text("pin"));
    QString image = text("image");
    if (s.value(QStringLiteral("standin")).toBool())
        image += QLatin1Char(' ') + tr("(offline stand-in)");
    m_image->setText(image);
    m_execdImage->setText(text("execdImage"));
    m_digest->setText(text("digest"));
    const QString container = s.value(QStringLiteral("container")).toString();
    m_container->setText(container.isEmpty()
            ? QStringLiteral("—")
            : QStringLiteral("%1 (%2)").arg(container, s.value(QStringLiteral("containerId")).toString()));
    m_uptime->setText(s.contains(QStringLiteral("uptimeSeconds"))
            ? formatUptime(s.value(QStringLiteral("uptimeSeconds")).toInteger())
            : QStringLiteral("—"));
    m_restarts->setText(s.contains(QStringLiteral("restarts"))
            ? QString::number(s.value(QStringLiteral("restarts")).toInt())
            : QStringLiteral("—"));
    m_sessions->setText(text("sessionDirectory"));
    m_restart->setEnabled(m_engine.runtime() && !m_restarting);
    m_restart->setText(m_restarting ? tr("Restarting…") : tr("Res&tart runtime"));
}

void RuntimePage::restart()
{
    RuntimeManager *runtime = m_engine.runtime();
    if (!runtime || m_restarting)
        return;
    m_restarting = true;
    refresh();
    QPointer<RuntimePage> self(this);
    runtime->restart([self](Status) {
        if (!self)
            return;
        self->m_restarting = false;
        self->refresh();
    });
}

} // namespace isolation
