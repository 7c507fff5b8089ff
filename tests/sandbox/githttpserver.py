#!/usr/bin/env python3
"""A git smart-HTTP server for the clone tests: `git http-backend` (CGI) behind Python's
http.server, with HTTP Basic authentication.

  githttpserver.py PROJECT_ROOT     serves PROJECT_ROOT's repositories at /cgi-bin/git/<repo>

The expected user and password are read from the first two lines of stdin, so they appear in no
command line and no file. Prints "PORT <n>" once listening on 127.0.0.1; then one line per request
("<status> <method> <path>") on stderr, never a header.
"""
import base64
import hmac
import http.server
import os
import shutil
import signal
import sys
import tempfile


def main():
    root = os.path.abspath(sys.argv[1])
    user = sys.stdin.readline().rstrip("\n")
    password = sys.stdin.readline().rstrip("\n")
    expected = b"Basic " + base64.b64encode(f"{user}:{password}".encode())

    # The CGI directory: one script that hands the request to git http-backend.
    serve_dir = tempfile.mkdtemp(prefix="githttp-")
    os.mkdir(os.path.join(serve_dir, "cgi-bin"))
    script = os.path.join(serve_dir, "cgi-bin", "git")
    with open(script, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\nexec git http-backend\n")
    os.chmod(script, 0o755)
    # http.server runs CGI scripts as "nobody" when started as root; the repositories are ours.
    http.server.nobody_uid = os.getuid
    os.environ["GIT_PROJECT_ROOT"] = root
    os.environ["GIT_HTTP_EXPORT_ALL"] = "1"

    class Handler(http.server.CGIHTTPRequestHandler):
        def authorized(self):
            given = (self.headers.get("Authorization") or "").encode()
            return hmac.compare_digest(given, expected)

        def refuse(self):
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self):
            if not self.authorized():
                return self.refuse()
            super().do_GET()

        def do_POST(self):
            if not self.authorized():
                return self.refuse()
            super().do_POST()

        def log_message(self, fmt, *args):
            pass

        def log_request(self, code="-", size="-"):
            sys.stderr.write(f"{code} {self.command} {self.path}\n")
            sys.stderr.flush()

    handler = lambda *a, **k: Handler(*a, directory=serve_dir, **k)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        shutil.rmtree(serve_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
