// One tray per display (app/tray/singleinstance.h) on its plain unix socket: a second start is
// answered and raises the first; a socket left by a tray that died is taken over; the socket is
// the user's alone and goes with the tray.
#include "singleinstance.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cstring>
#include <thread>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace isolation;

class tst_SingleInstance final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void secondStartRaisesTheFirst();
    void staleSocketTakenOver();
    void nothingRunning();
};

namespace {
// notifyRunning() blocks until the running tray answers, so it runs on a thread of its own while
// this one serves the running tray's event loop.
bool notifyOnThread(SingleInstance &second)
{
    std::atomic_bool done = false;
    bool answered = false;
    std::thread worker([&] {
        answered = second.notifyRunning();
        done = true;
    });
    while (!done)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    worker.join();
    return answered;
}
} // namespace

void tst_SingleInstance::secondStartRaisesTheFirst()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("tray.sock"));
    {
        SingleInstance first(path);
        QVERIFY2(first.listen(), qPrintable(first.errorString()));
        struct stat st {};
        QCOMPARE(::lstat(QFile::encodeName(path).constData(), &st), 0);
        QVERIFY(S_ISSOCK(st.st_mode));
        QCOMPARE(st.st_mode & 077, mode_t(0)); // other local users cannot raise (or probe) it
        QSignalSpy raised(&first, &SingleInstance::raiseRequested);
        SingleInstance second(path);
        QVERIFY(notifyOnThread(second));
        QCOMPARE(raised.size(), 1);
        // A second start never takes the socket of a tray that answers.
        SingleInstance third(path);
        std::atomic_bool listened = true;
        std::atomic_bool done = false;
        std::thread worker([&] {
            listened = third.listen();
            done = true;
        });
        while (!done)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        worker.join();
        QVERIFY(!listened);
        QVERIFY2(third.errorString().contains(QStringLiteral("another tray is running")), qPrintable(third.errorString()));
        QCOMPARE(raised.size(), 2);
    }
    QVERIFY(!QFileInfo::exists(path)); // gone with the tray
}

void tst_SingleInstance::staleSocketTakenOver()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("tray.sock"));
    // A socket file that nobody listens on, as a tray killed with SIGKILL leaves it.
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address {};
    address.sun_family = AF_UNIX;
    const QByteArray name = QFile::encodeName(path);
    std::memcpy(address.sun_path, name.constData(), size_t(name.size()));
    QCOMPARE(::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address), 0);
    ::close(fd);
    QVERIFY(QFileInfo::exists(path));

    SingleInstance tray(path);
    QVERIFY2(tray.listen(), qPrintable(tray.errorString()));
    QSignalSpy raised(&tray, &SingleInstance::raiseRequested);
    SingleInstance second(path);
    QVERIFY(notifyOnThread(second));
    QCOMPARE(raised.size(), 1);
}

void tst_SingleInstance::nothingRunning()
{
    QTemporaryDir dir;
    SingleInstance second(dir.filePath(QStringLiteral("tray.sock")));
    QVERIFY(!second.notifyRunning());
}

QTEST_GUILESS_MAIN(tst_SingleInstance)
#include "tst_singleinstance.moc"
