// AtomicFile: writes a file so that a crash leaves either the old file or the new one, never a
// partial one: a temporary file in the target's directory, written, fsync'ed, renamed over the
// target, then the directory fsync'ed so the rename itself is durable.
#pragma once

#include "core/result.h"

#include <QByteArrayView>
#include <QString>

namespace isolation::hub {

class AtomicFile
{
public:
    explicit AtomicFile(QString target);
    // Removes the temporary file unless commit() succeeded.
    ~AtomicFile();
    AtomicFile(const AtomicFile &) = delete;
    AtomicFile &operator=(const AtomicFile &) = delete;

    // Creates the temporary file (".tmp-<name>-<random>" beside the target, mode 0600).
    Status open();
    Status write(QByteArrayView bytes);
    // fsync, rename over the target, fsync the directory. Nothing here waits on the event loop, so
    // a caller that checked a precondition just before commits with nothing in between.
    Status commit();
    qint64 size() const { return m_size; }

    // The whole file at once.
    static Status replace(const QString &target, QByteArrayView bytes);
    // Deletes temporary files a crash left in `dir`.
    static void removeLeftovers(const QString &dir);
    // fsync of a directory, after creating or removing an entry in it.
    static Status syncDirectory(const QString &dir);

private:
    QString m_target;
    QString m_temp;
    int m_fd = -1;
    qint64 m_size = 0;
    bool m_committed = false;
};

} // namespace isolation::hub
