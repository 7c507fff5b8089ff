#include "standinmultipart.h"

#include <gmime/gmime.h>

#include <memory>

namespace isolation::standin {

namespace {

struct GObjectDeleter
{
    void operator()(gpointer p) const
    {
        if (p)
            g_object_unref(p);
    }
};
template<typename T>
using GPtr = std::unique_ptr<T, GObjectDeleter>;

} // namespace

Result<QList<FormPart>> parseFormData(const QByteArray &contentType, const QByteArray &body)
{
    static const bool initialised = [] {
        g_mime_init();
        return true;
    }();
    Q_UNUSED(initialised);
    // GMime parses a MIME entity: give it the body with its Content-Type header in front.
    const QByteArray entity = "Content-Type: " + contentType + "\r\n\r\n" + body;
    GPtr<GMimeStream> stream(g_mime_stream_mem_new_with_buffer(entity.constData(), size_t(entity.size())));
    GPtr<GMimeParser> parser(g_mime_parser_new_with_stream(stream.get()));
    GPtr<GMimeObject> object(g_mime_parser_construct_part(parser.get(), nullptr));
    if (!object || !GMIME_IS_MULTIPART(object.get()))
        return Error::invalidInput(QStringLiteral("the body is not multipart/form-data"));
    auto *multipart = GMIME_MULTIPART(object.get());
    QList<FormPart> parts;
    for (int i = 0; i < g_mime_multipart_get_count(multipart); ++i) {
        GMimeObject *part = g_mime_multipart_get_part(multipart, i);
        if (!GMIME_IS_PART(part))
            continue;
        FormPart p;
        p.name = QString::fromUtf8(g_mime_object_get_content_disposition_parameter(part, "name"));
        GMimeDataWrapper *content = g_mime_part_get_content(GMIME_PART(part));
        GPtr<GMimeStream> out(g_mime_stream_mem_new());
        if (content)
            g_mime_data_wrapper_write_to_stream(content, out.get());
        GByteArray *bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(out.get()));
        p.content = QByteArray(reinterpret_cast<const char *>(bytes->data), qsizetype(bytes->len));
        parts.append(p);
    }
    return parts;
}

} // namespace isolation::standin
