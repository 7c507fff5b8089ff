// A worker thread that used OpenSSL and ends after the process's exit handlers started (a pool
// joined by a static destructor, a task still finishing) must not lose its OpenSSL state: under
// LeakSanitizer that is a leak report and a non-zero exit of the engine (seen in CI under load).
// The test runs itself as a child that does exactly that, once as isolation-server and
// isolation-hub start (initOpenSslForProcess first) and once without it, which must leak: the
// scenario is real and the check can fail.
#include "crypto/opensslinit.h"

#include <QCoreApplication>
#include <QProcess>
#include <QTest>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

std::thread *g_worker = nullptr;
std::atomic<bool> g_release {false};

void joinWorkerAtExit()
{
    g_release = true;
    g_worker->join();
    delete g_worker;
}

// What an engine thread does with OpenSSL: random bytes (its own DRBGs) and an AES-256-GCM context.
bool useOpenSsl()
{
    unsigned char key[32];
    unsigned char nonce[12];
    if (RAND_bytes(key, sizeof key) != 1 || RAND_bytes(nonce, sizeof nonce) != 1)
        return false;
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr);
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    const bool ok = cipher && context && EVP_EncryptInit_ex2(context, cipher, key, nonce, nullptr) == 1;
    EVP_CIPHER_CTX_free(context);
    EVP_CIPHER_free(cipher);
    return ok;
}

// The child: the exit handler that joins the worker is registered before OpenSSL's own (if it
// registers one), so it runs after it, as a late join does.
int child(bool initFirst)
{
    if (initFirst && !isolation::initOpenSslForProcess())
        return 3;
    std::atexit(joinWorkerAtExit);
    std::atomic<bool> used {false};
    std::atomic<bool> ok {false};
    g_worker = new std::thread([&used, &ok] {
        ok = useOpenSsl();
        used = true;
        while (!g_release)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    while (!used)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return ok ? 0 : 4;
}

} // namespace

class tst_OpenSslExit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aLateThreadLosesNothing();
};

void tst_OpenSslExit::aLateThreadLosesNothing()
{
#if !defined(__SANITIZE_ADDRESS__)
    QSKIP("needs LeakSanitizer: the Debug build (ASan) is the one that can see the loss");
#endif
    const auto runChild = [](const QString &mode) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QCoreApplication::applicationFilePath(), {mode});
        p.waitForFinished(60000);
        return std::pair {
            p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromLocal8Bit(p.readAll())};
    };
    const auto [withoutCode, withoutOutput] = runChild(QStringLiteral("--child-without-init"));
    QVERIFY2(withoutCode != 0 && withoutOutput.contains(QLatin1String("LeakSanitizer")),
        qPrintable(QStringLiteral("without initOpenSslForProcess the late thread should leak (exit %1):\n%2")
                       .arg(withoutCode)
                       .arg(withoutOutput.left(2000))));
    const auto [withCode, withOutput] = runChild(QStringLiteral("--child-with-init"));
    QVERIFY2(withCode == 0 && !withOutput.contains(QLatin1String("LeakSanitizer")),
        qPrintable(QStringLiteral("exit %1:\n%2").arg(withCode).arg(withOutput.left(4000))));
}

int main(int argc, char *argv[])
{
    if (argc == 2 && std::strcmp(argv[1], "--child-with-init") == 0)
        return child(true);
    if (argc == 2 && std::strcmp(argv[1], "--child-without-init") == 0)
        return child(false);
    QCoreApplication app(argc, argv);
    tst_OpenSslExit test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_opensslexit.moc"
