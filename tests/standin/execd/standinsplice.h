// Stand-in only: copies bytes both ways between two connected devices until either closes
// (execd's WebSocket proxy, which needs no knowledge of the WebSocket protocol). Owns both.
#pragma once

#include <QObject>

class QIODevice;

namespace isolation::standin {

class StandinSplice final : public QObject
{
    Q_OBJECT
public:
    StandinSplice(QIODevice *a, QIODevice *b, QObject *parent = nullptr);

private:
    void pump(QIODevice *from, QIODevice *to);
    void close();

    QIODevice *m_a;
    QIODevice *m_b;
    bool m_closed = false;
};

} // namespace isolation::standin
