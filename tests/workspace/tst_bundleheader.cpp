// The bundle header grammar (docs/formats.md, "Git bundle subset"): what is accepted, what is
// refused and why, bounded lines, a device that delivers a few bytes at a time, random damage.
#include "workspace/bundleheader.h"

#include <QBuffer>
#include <QRandomGenerator>
#include <QTest>

using namespace isolation;

namespace {

const QByteArray kA(40, 'a');
const QByteArray kB(40, 'b');

// A sequential device handing out at most three bytes per read.
class Trickle final : public QIODevice
{
public:
    explicit Trickle(QByteArray data)
        : m_data(std::move(data))
    {
        open(QIODevice::ReadOnly);
    }
    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override { return m_data.size() - m_pos + QIODevice::bytesAvailable(); }

protected:
    qint64 readData(char *out, qint64 max) override
    {
        const qint64 n = std::min<qint64>({max, 3, m_data.size() - m_pos});
        memcpy(out, m_data.constData() + m_pos, size_t(n));
        m_pos += n;
        return n;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    QByteArray m_data;
    qint64 m_pos = 0;
};

} // namespace

class tst_BundleHeader final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void accepted_data();
    void accepted();
    void refused_data();
    void refused();
    void roundTrip();
    void tricklingDevice();
    void randomDamageNeverCrashes();
};

void tst_BundleHeader::accepted_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("version");
    QTest::addColumn<int>("prerequisites");
    QTest::addColumn<int>("refs");
    QTest::newRow("one ref") << "# v2 git bundle\n" + kA + " refs/heads/main\n\n" << 2 << 0 << 1;
    QTest::newRow("HEAD and refs") << "# v2 git bundle\n" + kA + " HEAD\n" + kA + " refs/heads/main\n" + kB
            + " refs/tags/v1\n\n" << 2
                                   << 0 << 3;
    QTest::newRow("prerequisites with and without comment") << "# v2 git bundle\n-" + kB + " a subject line\n-" + kA
            + "\n-" + kA.left(39) + "c \n" + kA
            + " refs/heads/main\n\n" << 2 << 3 << 1;
    QTest::newRow("v3 sha1") << "# v3 git bundle\n@object-format=sha1\n" + kA + " refs/heads/main\n\n" << 3 << 0 << 1;
    QTest::newRow("v3 no capability") << "# v3 git bundle\n" + kA + " refs/heads/main\n\n" << 3 << 0 << 1;
}

void tst_BundleHeader::accepted()
{
    QFETCH(QByteArray, text);
    QFETCH(int, version);
    QFETCH(int, prerequisites);
    QFETCH(int, refs);
    QBuffer in;
    in.setData(text + "PACK");
    in.open(QIODevice::ReadOnly);
    auto h = BundleHeader::read(in);
    QVERIFY2(h, qPrintable(h ? QString() : h.error().message));
    QCOMPARE(h.value().version, version);
    QCOMPARE(h.value().prerequisites.size(), prerequisites);
    QCOMPARE(h.value().refs.size(), refs);
    // Positioned at the pack.
    QCOMPARE(in.readAll(), QByteArray("PACK"));
}

void tst_BundleHeader::refused_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("why");
    const QByteArray v2 = "# v2 git bundle\n";
    const QByteArray main = kA + " refs/heads/main\n";
    QTest::newRow("empty") << QByteArray() << "ends early";
    QTest::newRow("other signature") << "# v4 git bundle\n" + main + '\n' << "signature";
    QTest::newRow("signature with CR") << "# v2 git bundle\r\n" + main + '\n' << "signature";
    QTest::newRow("no refs") << v2 + '\n' << "no refs";
    QTest::newRow("no blank line") << v2 + main << "ends early";
    QTest::newRow("uppercase id") << v2 + kA.toUpper() + " refs/heads/main\n\n"
                                  << "malformed ref line";
    QTest::newRow("short id") << v2 + kA.left(39) + " refs/heads/main\n\n"
                              << "malformed ref line";
    QTest::newRow("no ref name") << v2 + kA + "\n\n"
                                 << "malformed ref line";
    QTest::newRow("two spaces") << v2 + kA + "  refs/heads/main\n\n"
                                << "invalid ref name";
    QTest::newRow("ref outside refs/") << v2 + kA + " heads/main\n\n"
                                       << "invalid ref name";
    QTest::newRow("ref with ..") << v2 + kA + " refs/heads/a..b\n\n"
                                 << "invalid ref name";
    QTest::newRow("ref with CR") << v2 + kA + " refs/heads/main\r\n\n"
                                 << "invalid ref name";
    QTest::newRow("duplicate ref") << v2 + main + main + '\n' << "listed twice";
    QTest::newRow("prerequisite after ref") << v2 + main + '-' + kB + "\n\n"
                                            << "prerequisite after a ref";
    QTest::newRow("prerequisite glued comment") << v2 + '-' + kB + "x\n" + main + '\n' << "malformed prerequisite";
    QTest::newRow("capability in v2") << v2 + "@object-format=sha1\n" + main + '\n' << "capability";
    QTest::newRow("sha256") << "# v3 git bundle\n@object-format=sha256\n" + main + '\n' << "unsupported capability";
    QTest::newRow("filter") << "# v3 git bundle\n@filter=blob:none\n" + main + '\n' << "unsupported capability";
    QTest::newRow("line too long") << v2 + '-' + kB + ' ' + QByteArray(BundleHeader::kMaxLine, 'x') + '\n' + main + '\n'
                                   << "too long";
    QTest::newRow("binary") << QByteArray("\x00\x01\x02\n\n", 5) << "signature";
}

void tst_BundleHeader::refused()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, why);
    QBuffer in;
    in.setData(text);
    in.open(QIODevice::ReadOnly);
    auto h = BundleHeader::read(in);
    QVERIFY(!h);
    QCOMPARE(h.error().code, WorkspaceError::Code::Corrupt);
    QVERIFY2(h.error().message.contains(why), qPrintable(h.error().message));
}

void tst_BundleHeader::roundTrip()
{
    BundleHeader h;
    h.prerequisites = {{kB, "subject"}, {kA, {}}};
    h.refs = {{kA, "HEAD"}, {kA, "refs/heads/main"}, {kB, "refs/heads/session/x"}};
    QBuffer in;
    in.setData(h.serialize());
    in.open(QIODevice::ReadOnly);
    auto back = BundleHeader::read(in);
    QVERIFY(back);
    QCOMPARE(back.value().refs, h.refs);
    QCOMPARE(back.value().prerequisites.size(), 2);
    QCOMPARE(back.value().prerequisites.at(0).comment, QByteArray("subject"));
    QCOMPARE(back.value().serialize(), h.serialize());
}

void tst_BundleHeader::tricklingDevice()
{
    Trickle in("# v2 git bundle\n-" + kB + " s\n" + kA + " refs/heads/main\n\nPACKDATA");
    auto h = BundleHeader::read(in);
    QVERIFY2(h, qPrintable(h ? QString() : h.error().message));
    QCOMPARE(h.value().refs.size(), 1);
    QCOMPARE(in.readAll(), QByteArray("PACKDATA"));
}

void tst_BundleHeader::randomDamageNeverCrashes()
{
    const QByteArray good = "# v3 git bundle\n@object-format=sha1\n-" + kB + " subject\n" + kA + " HEAD\n" + kA
        + " refs/heads/main\n" + kB + " refs/heads/session/x\n\nPACK";
    QRandomGenerator rng(20240101);
    int accepted = 0;
    for (int i = 0; i < 5000; ++i) {
        QByteArray text = good;
        const int edits = 1 + int(rng.bounded(4));
        for (int e = 0; e < edits; ++e) {
            const int at = int(rng.bounded(text.size()));
            switch (rng.bounded(3)) {
            case 0:
                text[at] = char(rng.bounded(256));
                break;
            case 1:
                text.remove(at, 1 + int(rng.bounded(8)));
                break;
            default:
                text.insert(at, char(rng.bounded(256)));
                break;
            }
        }
        QBuffer in;
        in.setData(text);
        in.open(QIODevice::ReadOnly);
        auto h = BundleHeader::read(in);
        if (h) {
            ++accepted;
            // Whatever is accepted is within the grammar: it serializes to something that reads back.
            QBuffer again;
            again.setData(h.value().serialize());
            again.open(QIODevice::ReadOnly);
            QVERIFY(BundleHeader::read(again));
        } else {
            QCOMPARE(h.error().code, WorkspaceError::Code::Corrupt);
            QVERIFY(!h.error().message.isEmpty());
        }
    }
    qInfo() << accepted << "of 5000 damaged headers still parsed";
}

QTEST_GUILESS_MAIN(tst_BundleHeader)
#include "tst_bundleheader.moc"
