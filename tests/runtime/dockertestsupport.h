// Helpers for the tests on a real dockerd: the docker CLI as an independent witness (inspect,
// kill, tag, logs) and `ss` for what listens on the host. Header only; tests/runtime/ only.
#pragma once

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QStringList>
#include <QTest>

namespace isolation::test {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// What a process that was waited for left: killed when it did not finish in time.
inline Run collect(QProcess &p, bool finished)
{
    Run r;
    if (!finished) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

inline Run runProgram(const QString &program, const QStringList &args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(program, args);
    return collect(p, p.waitForFinished(timeoutMs));
}

// As runProgram, in `env`, with this thread's event loop turning meanwhile: for a peer under test
// that lives on it (the Docker proxy, say), which a blocking wait would starve.
inline Run runProgramTurning(
    const QString &program, const QStringList &args, const QProcessEnvironment &env, int timeoutMs = 120000)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    QElapsedTimer t;
    t.start();
    while (p.state() != QProcess::NotRunning && t.elapsed() < timeoutMs)
        QTest::qWait(10);
    return collect(p, p.state() == QProcess::NotRunning);
}

inline Run docker(const QStringList &args, int timeoutMs = 120000)
{
    return runProgram(QStringLiteral("docker"), args, timeoutMs);
}

inline QJsonObject dockerInspect(const QString &what)
{
    const Run r = docker({QStringLiteral("inspect"), what});
    return QJsonDocument::fromJson(r.out).array().first().toObject();
}

// Host ports a container publishes, with the host address each is bound to.
inline QList<QPair<QString, QString>> publishedPorts(const QJsonObject &inspected)
{
    QList<QPair<QString, QString>> out;
    const QJsonObject ports
        = inspected.value(QStringLiteral("NetworkSettings")).toObject().value(QStringLiteral("Ports")).toObject();
    for (auto it = ports.begin(); it != ports.end(); ++it) {
        for (const QJsonValue &b : it.value().toArray())
            out.append({b.toObject().value(QStringLiteral("HostIp")).toString(),
                b.toObject().value(QStringLiteral("HostPort")).toString()});
    }
    return out;
}

// Local addresses listening on `port` (ss -ltnH): "127.0.0.1:1234", "[::]:1234", "0.0.0.0:1234"...
inline QStringList listeners(const QString &port)
{
    QStringList out;
    const Run r = runProgram(QStringLiteral("ss"), {QStringLiteral("-ltnH")});
    for (const QByteArray &line : r.out.split('\n')) {
        const QList<QByteArray> cols = line.simplified().split(' ');
        if (cols.size() >= 4 && cols[3].endsWith(QByteArray(':' + port.toUtf8())))
            out << QString::fromUtf8(cols[3]);
    }
    return out;
}

inline QStringList containersWithLabel(const QString &label)
{
    const Run r = docker({QStringLiteral("ps"), QStringLiteral("-aq"), QStringLiteral("--no-trunc"),
        QStringLiteral("--filter"), QStringLiteral("label=") + label});
    return QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace isolation::test
