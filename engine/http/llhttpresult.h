// What one llhttp_execute() call did, in the terms its three users need: how many bytes it
// took, and why it stopped when it did not take them all.
#pragma once

#include <QString>
#include <QtGlobal>

#include <llhttp.h>

namespace isolation {

// The bytes of [data, data + size) that llhttp_execute() took: all of them, or those before the
// position where it paused (the end of a message, the start of an upgraded protocol) or failed.
inline qsizetype llhttpTaken(const llhttp_t *parser, llhttp_errno_t err, const char *data, qsizetype size)
{
    const char *stop = err == HPE_OK ? nullptr : llhttp_get_error_pos(parser);
    return stop && stop >= data && stop <= data + size ? qsizetype(stop - data) : size;
}

// Why llhttp stopped: its reason when it gave one, else the error's name.
inline QString llhttpWhy(const llhttp_t *parser, llhttp_errno_t err)
{
    const char *reason = llhttp_get_error_reason(parser);
    return QString::fromLatin1(reason ? reason : llhttp_errno_name(err));
}

} // namespace isolation
