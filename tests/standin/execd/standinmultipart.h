// Stand-in only: the parts of a multipart/form-data body (execd's /files/upload), read with GMime.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace isolation::standin {

struct FormPart
{
    QString name; // Content-Disposition name
    QByteArray content;
};

Result<QList<FormPart>> parseFormData(const QByteArray &contentType, const QByteArray &body);

} // namespace isolation::standin
