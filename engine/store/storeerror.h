// The store module's error: what went wrong talking to the hub's workspace store, or with what it
// sent. Errors are values (core/result.h); only Unavailable gets better by trying again.
#pragma once

#include "core/result.h"

#include <QLoggingCategory>
#include <QString>

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace isolation {

struct StoreError
{
    enum class Code {
        Unavailable, // the hub cannot be reached, timed out or failed (5xx): retry later
        Rejected, // the hub refused the request: `status` and `errorCode` say why (401, 403, 404, 412, ...)
        Refused, // what the hub sent does not verify: tampered, renamed, another workspace's, rolled back, malformed
        Local, // a local file could not be read or written, or the request itself made no sense
    };
    Code code = Code::Unavailable;
    int status = 0; // HTTP status when the hub answered
    QString errorCode; // the error body's code ("token_expired", "not_found", ...)
    QString message; // one sentence; never a token or key

    bool retryable() const { return code == Code::Unavailable; }

    static StoreError unavailable(QString m) { return {Code::Unavailable, 0, {}, std::move(m)}; }
    static StoreError refused(QString m) { return {Code::Refused, 0, {}, std::move(m)}; }
    static StoreError local(QString m) { return {Code::Local, 0, {}, std::move(m)}; }
};

template<typename T>
using StoreResult = Result<T, StoreError>;

QString errorCodeName(StoreError::Code code);

} // namespace isolation
