#include "settingsdialog.h"

#include "autostart.h"
#include "enginemodel.h"
#include "traypreferences.h"

#include "core/huburl.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QPointer>
#include <QVBoxLayout>

namespace isolation {

SettingsDialog::SettingsDialog(EngineModel &engine, Autostart &autostart, QWidget *parent)
    : QDialog(parent)
    , m_engine(engine)
    , m_autostart(autostart)
{
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Isolation settings"));
    setAttribute(Qt::WA_DeleteOnClose);
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_hub = new QLineEdit(this);
    m_hub->setObjectName(QStringLiteral("hubUrl"));
    m_hub->setAccessibleName(tr("Hub URL"));
    form->addRow(tr("&Hub:"), m_hub);
    auto *data = new QLabel(m_engine.paths().overridden() ? m_engine.paths().home() : m_engine.paths().dataDir(), this);
    data->setObjectName(QStringLiteral("dataLocation"));
    data->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(tr("Data:"), data);
    m_pairing = new QLabel(this);
    m_pairing->setObjectName(QStringLiteral("pairingLine"));
    m_pairing->setWordWrap(true);
    form->addRow(tr("Pairing:"), m_pairing);
    // The engine and the tray start at login separately: the engine keeps the computer reachable
    // with no one logged in to a desktop (the user unit), the tray is only its window.
    m_engineAtLogin = new QCheckBox(tr("Start the &engine at login"), this);
    m_engineAtLogin->setObjectName(QStringLiteral("engineAtLogin"));
    m_engineAtLoginHow = new QLabel(this);
    m_engineAtLoginHow->setObjectName(QStringLiteral("engineAtLoginHow"));
    m_engineAtLoginHow->setWordWrap(true);
    m_trayAtLogin = new QCheckBox(tr("Show the &tray at login"), this);
    m_trayAtLogin->setObjectName(QStringLiteral("trayAtLogin"));
    m_trayAtLogin->setChecked(m_autostart.trayAtLogin());
    auto *start = new QVBoxLayout;
    start->addWidget(m_engineAtLogin);
    start->addWidget(m_engineAtLoginHow);
    start->addWidget(m_trayAtLogin);
    form->addRow(tr("At login:"), start);
    addTrayPreferences(form);
    layout->addLayout(form);
    m_unpair = new QPushButton(tr("&Unpair this computer…"), this);
    m_unpair->setObjectName(QStringLiteral("unpairButton"));
    layout->addWidget(m_unpair, 0, Qt::AlignLeft);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        // A hub the engine would refuse is said now, and the dialog stays open to correct it.
        if (!m_hub->isReadOnly()) {
            if (auto hub = HubUrl::check(QUrl::fromUserInput(m_hub->text().trimmed())); !hub) {
                QMessageBox::warning(this, tr("Isolation settings"), hub.error().message);
                m_hub->setFocus();
                return;
            }
        }
        apply();
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_unpair, &QPushButton::clicked, this, &SettingsDialog::unpair);
    connect(&m_engine, &EngineModel::stateChanged, this, &SettingsDialog::update);
    m_hub->setText(m_engine.status().hub);
    update();
    // Whether the user unit starts the engine takes systemctl, asked off this thread: the box
    // waits for the answer (asked again each time: the member may have changed it elsewhere).
    connect(&m_autostart, &Autostart::changed, this, &SettingsDialog::updateAutostart);
    m_autostart.refresh();
    updateAutostart();
}

void SettingsDialog::addTrayPreferences(QFormLayout *form)
{
    m_iconStyle = new QComboBox(this);
    m_iconStyle->setObjectName(QStringLiteral("iconStyle"));
    m_iconStyle->addItem(tr("Colour"), int(IconStyle::Colour));
    m_iconStyle->addItem(tr("Monochrome, for light panels"), int(IconStyle::MonochromeDark));
    m_iconStyle->addItem(tr("Monochrome, for dark panels"), int(IconStyle::MonochromeLight));
    TrayPreferences prefs(m_engine.settings());
    m_iconStyle->setCurrentIndex(m_iconStyle->findData(int(prefs.iconStyle())));
    form->addRow(tr("Tray &icon:"), m_iconStyle);
    const QStringList labels {tr("Another session saved first"), tr("A sync conflicts"),
        tr("This computer is unpaired"), tr("The runtime stops working")};
    const QStringList kinds = TrayPreferences::notificationKinds();
    for (int i = 0; i < kinds.size(); ++i) {
        auto *box = new QCheckBox(labels.at(i), this);
        box->setObjectName(QStringLiteral("notify_") + kinds.at(i));
        box->setChecked(prefs.notifies(kinds.at(i)));
        m_notify << box;
        form->addRow(i == 0 ? tr("Notify me when:") : QString(), box);
    }
}

void SettingsDialog::updateAutostart()
{
    const bool ready = m_autostart.isReady();
    m_engineAtLogin->setEnabled(ready);
    if (!ready) {
        m_engineAtLoginHow->setText(tr("Looking up how this desktop starts programs at login…"));
        return;
    }
    if (!m_autostartShown) { // later changes must not undo what the member ticks meanwhile
        m_engineAtLogin->setChecked(m_autostart.engineAtLogin());
        m_autostartShown = true;
    }
    m_engineAtLoginHow->setText(m_autostart.engineMechanism() == QLatin1String("systemd")
            ? tr("Through the systemd user unit isolation-server.service, so the engine runs without a desktop too.")
            : tr("Through an autostart entry of this desktop (%1).").arg(Autostart::engineEntryFile()));
}

void SettingsDialog::update()
{
    const api::Status &s = m_engine.status();
    const bool paired = s.paired;
    m_pairing->setText(!m_engine.attached() ? m_engine.stateReason()
            : paired                        ? tr("Paired as %1 (%2)").arg(s.serverName, s.serverId)
                                            : tr("Not paired"));
    m_unpair->setEnabled(paired);
    m_unpair->setToolTip(paired ? QString() : tr("This computer is not paired"));
    // The hub of a paired computer is fixed by its pairing; unpair to change it.
    m_hub->setReadOnly(paired || !m_engine.attached());
    m_hub->setToolTip(paired ? tr("Unpair first to pair with another hub") : QString());
}

void SettingsDialog::apply()
{
    TrayPreferences prefs(m_engine.settings());
    const QStringList kinds = TrayPreferences::notificationKinds();
    for (int i = 0; i < kinds.size(); ++i)
        prefs.setNotifies(kinds.at(i), m_notify.at(i)->isChecked());
    prefs.setIconStyle(IconStyle(m_iconStyle->currentData().toInt()));
    // Both choices read first: Autostart's changed() refreshes the boxes.
    const bool trayAtLogin = m_trayAtLogin->isChecked();
    const bool engineAtLogin = m_engineAtLogin->isChecked();
    if (trayAtLogin != m_autostart.trayAtLogin()) {
        if (Status status = m_autostart.setTrayAtLogin(trayAtLogin); !status)
            QMessageBox::warning(this, tr("Isolation settings"), status.error().message);
    }
    if (m_autostart.isReady() && engineAtLogin != m_autostart.engineAtLogin()) {
        // systemctl answers later; the dialog may be gone by then, the tray is not.
        m_autostart.setEngineAtLogin(engineAtLogin, [](Status status) {
            if (!status)
                QMessageBox::warning(nullptr, tr("Isolation settings"), status.error().message);
        });
    }
    m_engine.settings().sync();
    Q_EMIT preferencesChanged();
    // The hub is the engine's setting: it keeps it and pairs with it.
    const QUrl url = QUrl::fromUserInput(m_hub->text().trimmed());
    if (!m_hub->isReadOnly() && url.isValid() && url.toString() != m_engine.status().hub) {
        EngineModel *engine = &m_engine;
        QPointer<EngineModel> alive(engine);
        engine->client().call("PUT", QStringLiteral("/v1/settings"),
            QJsonObject {{QStringLiteral("hubUrl"), url.toString()}},
            [alive](EngineClient::Answer r) {
                if (!alive)
                    return;
                if (!r)
                    QMessageBox::warning(nullptr, tr("Isolation settings"), describe(r.error()));
                alive->refreshStatus();
            },
            10000);
    }
}

void SettingsDialog::unpair()
{
    const auto answer = QMessageBox::question(this, tr("Unpair this computer?"),
        tr("Isolation will no longer reach sessions on this computer until you pair it again. Unpair?"),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes)
        return;
    QPointer<EngineModel> alive(&m_engine);
    m_engine.client().post(QStringLiteral("/v1/unpair"), {}, [alive](EngineClient::Answer r) {
        if (alive && !r)
            QMessageBox::warning(nullptr, tr("Unpair this computer?"), describe(r.error()));
    }, 60000);
}

} // namespace isolation
