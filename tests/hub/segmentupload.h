// SegmentUpload: one streamed PUT of a segment. The body goes straight into a temporary file
// beside the segments while its SHA-256 is taken; once whole, the digest must equal the name the
// segment was put under, and only then is the file renamed into place (fsync'ed, atomic).
#pragma once

#include "atomicfile.h"

#include "http/httpbodysink.h"

#include <QCryptographicHash>
#include <QString>

namespace isolation::hub {

class ActionLog;

class SegmentUpload final : public HttpBodySink
{
public:
    SegmentUpload(ActionLog &log, QString workspaceId, QString name, QString path, qint64 maxBytes);

    // Creates the temporary file; an error means the upload is refused (507).
    Status open() { return m_file.open(); }

    bool write(QByteArrayView piece) override;
    void complete(const HttpRequest &request, HttpReply reply) override;

private:
    ActionLog &m_log;
    QString m_workspaceId;
    QString m_name;
    QString m_path;
    qint64 m_maxBytes;
    AtomicFile m_file;
    QCryptographicHash m_sha {QCryptographicHash::Sha256};
    qint64 m_size = 0;
    bool m_tooLarge = false;
    QString m_writeError;
};

} // namespace isolation::hub
