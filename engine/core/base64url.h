// The base64 of our wire formats and tokens (docs/formats.md): the URL-safe alphabet, no padding.
#pragma once

#include <QByteArray>

namespace isolation {

inline constexpr auto kBase64Url = QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals;

} // namespace isolation
