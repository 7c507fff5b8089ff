// libcurl, opened on first use (dlopen) rather than linked. A process that never makes a libcurl
// request (the tray while the runtime is off) then never loads it, nor what Debian's libcurl
// pulls in at load time (GnuTLS through librtmp and libldap, p11-kit, Kerberos, SASL): about
// 5 MiB resident (bench/README.md, "tray").
#pragma once

#include <curl/curl.h>

#include <QString>

namespace isolation::libcurl {

// The functions the engine uses, resolved from libcurl.so.4.
struct Api
{
    CURL *(*easy_init)();
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    curl_slist *(*slist_append)(curl_slist *, const char *);
    void (*slist_free_all)(curl_slist *);
};

// Opens libcurl the first time (thread-safe) and returns its functions; null when it cannot be
// opened or lacks one of them (`*error` then says why, the same on every call).
const Api *load(QString *error = nullptr);

} // namespace isolation::libcurl
