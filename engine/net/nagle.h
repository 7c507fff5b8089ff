// Nagle's algorithm off on the TCP connections Qt's HTTP client opens.
//
// QNetworkAccessManager leaves TCP_NODELAY off on its sockets and offers no way to reach them. It
// writes an upload's body in 16 KiB pieces, and whenever one of them leaves a segment shorter than
// the MSS in flight (on loopback, whose MSS is 65,483 bytes, four pieces make a full segment and a
// 53-byte one), the next piece waits for that short segment's ACK, which the receiver delays (40 ms
// on Linux, up to 200 ms elsewhere). A one-file save's 90 KB segment took ~50 ms instead of ~8 ms to
// reach a local hub in a third of the saves (tcpdump in bench/README.md, "2026-12-06, evening").
// The store client turns the algorithm off on its connections as an upload starts.
#pragma once

namespace isolation {

// Sets TCP_NODELAY on every connected TCP socket of this process that does not have it yet (found
// through /proc/self/fd; listening sockets and other kinds of descriptor are left alone). Returns
// how many it changed. One pass over the open descriptors: a few system calls each.
int disableNagleOnTcpConnections();

} // namespace isolation
