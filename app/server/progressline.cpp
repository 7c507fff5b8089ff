#include "progressline.h"

#include "exitcodes.h"

#include "core/signalwatcher.h"
#include "localapi/eventfollower.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QHash>
#include <QJsonDocument>
#include <QSet>
#include <QThread>
#include <QTimer>
#include <QUrl>

#include <sys/ioctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace isolation {

namespace {

constexpr int kRedrawMs = 500; // the line is redrawn this often (the time so far moves on)
constexpr int kSubscribeWaitMs = 2000; // how long the call waits for the event stream to open
constexpr int kDrainMs = 1000; // how long --json --progress waits for the events after the answer

QString operationText(const QString &operation)
{
    if (operation == QLatin1String("save"))
        return QStringLiteral("Saving");
    if (operation == QLatin1String("sync"))
        return QStringLiteral("Syncing");
    if (operation == QLatin1String("open"))
        return QStringLiteral("Opening");
    if (operation == QLatin1String("bundle") || operation == QLatin1String("export"))
        return QStringLiteral("Exporting");
    return operation;
}

QString phaseText(const QString &phase)
{
    static const QHash<QString, QString> names {{QStringLiteral("commit"), QStringLiteral("committing")},
        {QStringLiteral("merge"), QStringLiteral("merging")}, {QStringLiteral("segment"), QStringLiteral("packing")},
        {QStringLiteral("upload"), QStringLiteral("uploading")},
        {QStringLiteral("publish"), QStringLiteral("publishing")},
        {QStringLiteral("download"), QStringLiteral("downloading")},
        {QStringLiteral("apply"), QStringLiteral("applying")}, {QStringLiteral("fetch"), QStringLiteral("fetching")},
        {QStringLiteral("plan"), QStringLiteral("planning")}, {QStringLiteral("update"), QStringLiteral("updating")},
        {QStringLiteral("refresh"), QStringLiteral("asking the hub")},
        {QStringLiteral("settle"), QStringLiteral("settling")},
        {QStringLiteral("cache"), QStringLiteral("from the warm cache")},
        {QStringLiteral("recover"), QStringLiteral("recovering")},
        {QStringLiteral("checkout"), QStringLiteral("checking out")},
        {QStringLiteral("write"), QStringLiteral("writing the file")}};
    return names.value(phase, phase);
}

// 1024-based, one decimal; the unit of the larger figure serves both ("12.3 of 40.0 MiB").
const char *unitFor(qint64 bytes, double *divisor)
{
    static constexpr const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = 1;
    int i = 0;
    while (i < 4 && double(bytes) >= d * 1024) {
        d *= 1024;
        ++i;
    }
    *divisor = d;
    return units[i];
}

QString amount(qint64 bytes, double divisor)
{
    return divisor == 1 ? QString::number(bytes) : QString::number(double(bytes) / divisor, 'f', 1);
}

QString sizeText(qint64 bytes)
{
    double d = 1;
    const char *unit = unitFor(bytes, &d);
    return amount(bytes, d) + QLatin1Char(' ') + QLatin1String(unit);
}

QString durationText(qint64 seconds)
{
    if (seconds >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(seconds / 3600)
            .arg((seconds / 60) % 60, 2, 10, QLatin1Char('0'))
            .arg(seconds % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
}

int terminalColumns()
{
    winsize size {};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    return 80;
}

void writeErr(const QByteArray &bytes)
{
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stderr);
    std::fflush(stderr);
}

} // namespace

void ProgressLine::update(const QJsonObject &progress, qint64 nowMs)
{
    const QJsonValue operation = progress.value(QStringLiteral("operation"));
    if (!operation.isString() || operation.toString().isEmpty()) {
        m_operation.clear();
        m_phase.clear();
        m_bytes = 0;
        m_totalBytes = -1;
        m_rate.reset();
        return;
    }
    const QString phase = progress.value(QStringLiteral("phase")).toString();
    if (operation.toString() != m_operation) {
        m_operation = operation.toString();
        m_startedMs = nowMs;
        m_phase.clear();
    }
    if (phase != m_phase) {
        m_phase = phase;
        m_rate.reset();
    }
    m_bytes = progress.value(QStringLiteral("bytes")).toInteger();
    m_totalBytes = progress.value(QStringLiteral("totalBytes")).toInteger(-1);
    m_rate.add(nowMs, m_bytes);
}

void ProgressLine::updateSession(const QJsonObject &session, qint64 nowMs)
{
    static const QSet<QString> between {QStringLiteral("building"), QStringLiteral("creating"),
        QStringLiteral("starting"), QStringLiteral("preparing"), QStringLiteral("pausing"), QStringLiteral("resuming"),
        QStringLiteral("deleting"), QStringLiteral("adopting")};
    const QJsonObject sandbox = session.value(QStringLiteral("sandbox")).toObject();
    const QString state = sandbox.value(QStringLiteral("state")).toString();
    if (!between.contains(state)) {
        m_sandboxState.clear();
        m_activity.clear();
        return;
    }
    if (state != m_sandboxState) {
        m_sandboxState = state;
        m_activityStartedMs = nowMs;
    }
    const QString reason = sandbox.value(QStringLiteral("reason")).toString().simplified();
    m_activity
        = QStringLiteral("Sandbox %1").arg(state) + (reason.isEmpty() ? QString() : QStringLiteral(": ") + reason);
}

double ProgressLine::rate() const
{
    return m_rate.bytesPerSecond();
}

QString ProgressLine::render(qint64 nowMs, int columns) const
{
    if (isIdle())
        return {};
    const int room = std::max(1, columns - 1); // the last column would wrap on some terminals
    auto cut
        = [room](QString text) { return text.size() > room ? text.left(std::max(0, room - 1)) + QChar(0x2026) : text; };
    if (m_operation.isEmpty()) {
        // The time in this state goes first, so a long reason cut to the width never hides it.
        return cut(QStringLiteral("[%1] ").arg(durationText(std::max<qint64>(0, nowMs - m_activityStartedMs) / 1000))
            + m_activity);
    }
    QString text = operationText(m_operation);
    if (!m_phase.isEmpty())
        text += QStringLiteral(": ") + phaseText(m_phase);
    if (m_totalBytes > 0) {
        double d = 1;
        const char *unit = unitFor(m_totalBytes, &d);
        const qint64 percent = std::min<qint64>(100, m_bytes * 100 / m_totalBytes);
        text += QStringLiteral(" %1 of %2 %3 (%4%)")
                    .arg(amount(m_bytes, d), amount(m_totalBytes, d), QLatin1String(unit))
                    .arg(percent);
    } else if (m_bytes > 0) {
        text += QLatin1Char(' ') + sizeText(m_bytes);
    }
    if (const double r = rate(); r > 0) {
        text += QStringLiteral(", %1/s").arg(sizeText(qint64(r)));
        if (const qint64 left = m_rate.secondsLeft(m_bytes, m_totalBytes); left >= 0)
            text += QStringLiteral(", %1 left").arg(durationText(left));
    }
    text += QStringLiteral(" [%1]").arg(durationText(std::max<qint64>(0, nowMs - m_startedMs) / 1000));
    return cut(text);
}

namespace progress {

QCommandLineOption option()
{
    return {QStringLiteral("progress"),
        QStringLiteral("With --json: stream the progress first, one JSON object per line ({\"progress\": {...}}, "
                       "the data of the engine's session.progress or workspace.progress events; "
                       "{\"sandbox\": {\"session\", \"state\", \"reason\"}} each time the session's sandbox "
                       "moves), then the result. On a terminal a progress line shows without it.")};
}

Mode modeFor(bool json, bool jsonProgress)
{
    if (json)
        return jsonProgress ? Mode::Json : Mode::Quiet;
    const char *term = std::getenv("TERM");
    if (isatty(STDERR_FILENO) && !(term && std::strcmp(term, "dumb") == 0))
        return Mode::Line;
    return Mode::Quiet;
}

Result<QJsonObject, LocalApiError> call(const LocalApiClient &client, const QByteArray &method, const QString &path,
    const QJsonObject &body, const QString &session, Mode mode, Interrupt interrupt, Subject kind)
{
    if (mode == Mode::Quiet && interrupt == Interrupt::Exit)
        return client.call(method, path, body);

    EventFollower follower(client.socketPath());
    if (mode != Mode::Quiet) {
        // Follow from before the call, so its first phase is seen; without a stream (an old engine,
        // say), the call goes on all the same.
        QEventLoop waiting;
        QObject::connect(&follower, &EventFollower::subscribed, &waiting, &QEventLoop::quit);
        QObject::connect(&follower, &EventFollower::disconnected, &waiting, &QEventLoop::quit);
        QTimer::singleShot(kSubscribeWaitMs, &waiting, &QEventLoop::quit);
        follower.start();
        waiting.exec();
    }

    QElapsedTimer clock;
    clock.start();
    ProgressLine line;
    bool shown = false;
    auto draw = [&] {
        const QString text = line.render(clock.elapsed(), terminalColumns());
        if (text.isEmpty() && !shown)
            return;
        writeErr("\r\033[K" + text.toUtf8());
        shown = !text.isEmpty();
    };
    bool idle = false; // the session's operation ended (its last event came)
    QEventLoop *draining = nullptr;
    auto writeJsonLine = [](const QJsonObject &o) {
        const QByteArray out = QJsonDocument(o).toJson(QJsonDocument::Compact);
        std::fwrite(out.constData(), 1, size_t(out.size()), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
    };
    QJsonObject lastSandbox; // the sandbox's state and reason as last streamed
    QObject::connect(&follower, &EventFollower::event, &follower, [&](const LocalApiEvent &e) {
        if (kind == Subject::Workspace) {
            if (e.kind != QLatin1String("workspace.progress")
                || (e.data.value(QStringLiteral("workspace")).toString() != session
                    && e.data.value(QStringLiteral("name")).toString() != session))
                return;
        } else if ((e.kind == QLatin1String("session.changed") || e.kind == QLatin1String("session.added"))
            && e.data.value(QStringLiteral("id")).toString() == session) {
            if (mode == Mode::Line) {
                line.updateSession(e.data, clock.elapsed());
                draw();
                return;
            }
            // A line each time the sandbox's state or reason moves (a build's latest step, say).
            const QJsonObject sandbox = e.data.value(QStringLiteral("sandbox")).toObject();
            const QJsonObject now {{QStringLiteral("session"), session},
                {QStringLiteral("state"), sandbox.value(QStringLiteral("state")).toString()},
                {QStringLiteral("reason"), sandbox.value(QStringLiteral("reason")).toString()}};
            if (mode == Mode::Json && !sandbox.isEmpty() && now != lastSandbox) {
                lastSandbox = now;
                writeJsonLine(QJsonObject {{QStringLiteral("sandbox"), now}});
            }
            return;
        }
        if (kind == Subject::Session
            && (e.kind != QLatin1String("session.progress")
                || e.data.value(QStringLiteral("session")).toString() != session))
            return;
        idle = e.data.value(QStringLiteral("operation")).isNull();
        if (idle && draining)
            draining->quit();
        if (mode == Mode::Json) {
            writeJsonLine(QJsonObject {{QStringLiteral("progress"), e.data}});
            return;
        }
        line.update(e.data, clock.elapsed());
        draw();
    });

    std::optional<Result<QJsonObject, LocalApiError>> result;
    QEventLoop running;
    QThread *worker
        = QThread::create([&result, client, method, path, body] { result = client.call(method, path, body); });
    QObject::connect(worker, &QThread::finished, &running, &QEventLoop::quit);
    QTimer redraw;
    if (mode == Mode::Line) {
        QObject::connect(&redraw, &QTimer::timeout, &running, draw);
        redraw.start(kRedrawMs);
    }
    // Ctrl-C: the engine is asked to cancel (it undoes what the operation did), and the answer
    // awaited; a second Ctrl-C, or SIGTERM, ends this process at once.
    std::unique_ptr<SignalWatcher> signals;
    int interrupts = 0;
    if (interrupt == Interrupt::Cancel) {
        signals = std::make_unique<SignalWatcher>();
        QObject::connect(signals.get(), &SignalWatcher::terminationRequested, &running, [&](int number) {
            if (number != SIGINT || ++interrupts > 1) {
                if (shown)
                    writeErr("\r\033[K");
                writeErr("Stopped waiting: the engine goes on with it.\n");
                std::_Exit(exitcode::Interrupted);
            }
            // A session's operation, or the exports of a workspace.
            const QString cancelPath = kind == Subject::Workspace
                ? QStringLiteral("/v1/workspaces/%1/cancel").arg(QString::fromLatin1(QUrl::toPercentEncoding(session)))
                : QStringLiteral("/v1/sessions/%1/cancel").arg(session);
            const auto asked = client.call("POST", cancelPath, {});
            const QString said = asked ? QStringLiteral("Cancelling: what it did is being undone")
                                       : asked.error().message + QStringLiteral("; waiting for it to end");
            if (shown)
                writeErr("\r\033[K");
            writeErr((said + QStringLiteral(" (Ctrl-C again to stop waiting)\n")).toUtf8());
            draw();
        });
    }
    worker->start();
    running.exec();
    signals.reset();
    worker->wait();
    delete worker;
    if (!idle && mode == Mode::Json && follower.isConnected()) {
        // The answer may overtake the last events on their own connection: take them until the
        // operation's end, for a moment at most.
        QEventLoop drain;
        draining = &drain;
        QTimer::singleShot(kDrainMs, &drain, &QEventLoop::quit);
        drain.exec();
        draining = nullptr;
    }
    follower.stop();
    if (shown)
        writeErr("\r\033[K");
    return std::move(*result);
}

} // namespace progress

} // namespace isolation
