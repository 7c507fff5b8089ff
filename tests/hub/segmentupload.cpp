#include "segmentupload.h"

#include "actionlog.h"

#include "http/httpserver.h"

#include <QFile>
#include <QJsonObject>
#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcHub)

namespace isolation::hub {

SegmentUpload::SegmentUpload(ActionLog &log, QString workspaceId, QString name, QString path, qint64 maxBytes)
    : m_log(log)
    , m_workspaceId(std::move(workspaceId))
    , m_name(std::move(name))
    , m_path(std::move(path))
    , m_maxBytes(maxBytes)
    , m_file(m_path)
{ }

bool SegmentUpload::write(QByteArrayView piece)
{
    if (m_size + piece.size() > m_maxBytes) {
        m_tooLarge = true;
        return false;
    }
    if (auto s = m_file.write(piece); !s) {
        m_writeError = s.error().message;
        return false;
    }
    m_sha.addData(piece);
    m_size += piece.size();
    return true;
}

void SegmentUpload::complete(const HttpRequest &, HttpReply reply)
{
    if (m_tooLarge) {
        reply.send(HttpResponse::error(
            413, QStringLiteral("too_large"), QStringLiteral("a segment is at most %1 bytes").arg(m_maxBytes)));
        return;
    }
    if (!m_writeError.isEmpty()) {
        qCWarning(lcHub) << "segment upload failed:" << m_writeError;
        reply.send(HttpResponse::error(
            507, QStringLiteral("insufficient_storage"), QStringLiteral("the hub could not store the segment")));
        return;
    }
    // The name is the content's address: bytes with another digest cannot be stored under it.
    if (QString::fromLatin1(m_sha.result().toHex()) != m_name) {
        reply.send(HttpResponse::error(
            400, QStringLiteral("digest_mismatch"), QStringLiteral("the body's SHA-256 is not the segment's name")));
        return;
    }
    HttpResponse answer
        = HttpResponse::json(200, QJsonObject {{QStringLiteral("name"), m_name}, {QStringLiteral("size"), m_size}});
    answer.setHeader("ETag", '"' + m_name.toLatin1() + '"');
    if (QFile::exists(m_path)) {
        // Same name, same bytes: an idempotent repeat. The temporary file goes away with us.
        reply.send(answer);
        return;
    }
    if (auto s = m_file.commit(); !s) {
        qCWarning(lcHub) << "segment commit failed:" << s.error().message;
        reply.send(HttpResponse::error(
            507, QStringLiteral("insufficient_storage"), QStringLiteral("the hub could not store the segment")));
        return;
    }
    m_log.record(QStringLiteral("segment.stored"),
        {{QStringLiteral("workspace"), m_workspaceId}, {QStringLiteral("segment"), m_name},
            {QStringLiteral("bytes"), m_size}});
    answer.status = 201;
    reply.send(answer);
}

} // namespace isolation::hub
