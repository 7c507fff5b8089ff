#include "standinsplice.h"

#include <QAbstractSocket>
#include <QTimer>

namespace isolation::standin {

StandinSplice::StandinSplice(QIODevice *a, QIODevice *b, QObject *parent)
    : QObject(parent)
    , m_a(a)
    , m_b(b)
{
    a->setParent(this);
    b->setParent(this);
    connect(a, &QIODevice::readyRead, this, [this] { pump(m_a, m_b); });
    connect(b, &QIODevice::readyRead, this, [this] { pump(m_b, m_a); });
    for (QIODevice *d : {a, b}) {
        if (auto *s = qobject_cast<QAbstractSocket *>(d))
            connect(s, &QAbstractSocket::disconnected, this, &StandinSplice::close);
    }
    QTimer::singleShot(0, this, [this] {
        pump(m_a, m_b);
        pump(m_b, m_a);
    });
}

void StandinSplice::pump(QIODevice *from, QIODevice *to)
{
    const QByteArray data = from->readAll();
    if (!data.isEmpty())
        to->write(data);
}

void StandinSplice::close()
{
    if (m_closed)
        return;
    m_closed = true;
    pump(m_a, m_b);
    pump(m_b, m_a);
    for (QIODevice *d : {m_a, m_b}) {
        if (auto *s = qobject_cast<QAbstractSocket *>(d))
            s->disconnectFromHost();
    }
    deleteLater();
}

} // namespace isolation::standin
