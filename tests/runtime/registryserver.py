#!/usr/bin/env python3
"""A read-only Docker registry (Registry HTTP API v2) serving one image, for the pull tests.

  registryserver.py IMAGE_TAR NAME TAG [--chunk BYTES] [--interval SECONDS] [--pause SECONDS]

IMAGE_TAR is what `docker save` wrote for a one-layer image. The server serves it as NAME:TAG:
GET /v2/, the manifest by tag or digest (application/vnd.docker.distribution.manifest.v2+json,
with Docker-Content-Digest), and blobs by digest. The config gets a fresh "comment" and the layer
is gzipped with a fresh header time, so each run is an image (and a blob) this Docker has never
seen: it downloads instead of answering "Already exists".

The layer blob is throttled: CHUNK bytes (default 64 KiB) every INTERVAL seconds (default 0.05),
with one pause of PAUSE seconds (default 0) once half of it is sent. Listens on 127.0.0.1 (Docker
takes registries on 127.0.0.0/8 as insecure, so plain HTTP works). Prints "PORT <n>" and then
"LAYER <compressed size>" on stdout once listening; one line per request on stderr
("<status> <method> <path>"), and "BLOB SENT"/"BLOB ABORTED" when the layer's answer ends.
"""
import argparse
import gzip
import hashlib
import http.server
import json
import os
import random
import signal
import sys
import tarfile
import time

MANIFEST_TYPE = "application/vnd.docker.distribution.manifest.v2+json"
CONFIG_TYPE = "application/vnd.docker.container.image.v1+json"
LAYER_TYPE = "application/vnd.docker.image.rootfs.diff.tar.gzip"


def digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def load_image(path):
    """The config and the one layer (gzipped) of a `docker save` archive, made new for this run."""
    with tarfile.open(path) as tar:
        saved = json.load(tar.extractfile("manifest.json"))[0]
        if len(saved["Layers"]) != 1:
            raise SystemExit("registryserver.py serves one-layer images only")
        config = json.load(tar.extractfile(saved["Config"]))
        layer = tar.extractfile(saved["Layers"][0]).read()
    nonce = random.getrandbits(31)
    config["comment"] = f"isolation pull test {nonce}"
    config_bytes = json.dumps(config, separators=(",", ":")).encode()
    layer_gz = gzip.compress(layer, compresslevel=6, mtime=nonce)
    manifest = json.dumps({
        "schemaVersion": 2,
        "mediaType": MANIFEST_TYPE,
        "config": {"mediaType": CONFIG_TYPE, "size": len(config_bytes), "digest": digest(config_bytes)},
        "layers": [{"mediaType": LAYER_TYPE, "size": len(layer_gz), "digest": digest(layer_gz)}],
    }, indent=3).encode()
    return manifest, {digest(config_bytes): config_bytes, digest(layer_gz): layer_gz}, digest(layer_gz)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("image_tar")
    parser.add_argument("name")
    parser.add_argument("tag")
    parser.add_argument("--chunk", type=int, default=64 * 1024)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--pause", type=float, default=0.0)
    args = parser.parse_args()
    manifest, blobs, layer_digest = load_image(args.image_tar)
    manifest_digest = digest(manifest)
    prefix = f"/v2/{args.name}/"

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, status, body, content_type, extra=None, throttle=False):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Docker-Distribution-API-Version", "registry/2.0")
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            if self.command == "HEAD":
                return
            if not throttle:
                self.wfile.write(body)
                return
            paused = args.pause <= 0
            try:
                for at in range(0, len(body), args.chunk):
                    if not paused and at >= len(body) // 2:
                        paused = True
                        time.sleep(args.pause)
                    self.wfile.write(body[at:at + args.chunk])
                    self.wfile.flush()
                    time.sleep(args.interval)
                sys.stderr.write("BLOB SENT\n")
            except (BrokenPipeError, ConnectionResetError):
                sys.stderr.write("BLOB ABORTED\n")
                self.close_connection = True
            sys.stderr.flush()

        def not_found(self, code):
            body = json.dumps({"errors": [{"code": code, "message": code.lower(), "detail": self.path}]}).encode()
            self.answer(404, body, "application/json")

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if path in ("/v2", "/v2/"):
                return self.answer(200, b"{}", "application/json")
            if not path.startswith(prefix):
                return self.not_found("NAME_UNKNOWN")
            kind, _, ref = path[len(prefix):].partition("/")
            if kind == "manifests":
                if ref not in (args.tag, manifest_digest):
                    return self.not_found("MANIFEST_UNKNOWN")
                return self.answer(200, manifest, MANIFEST_TYPE, {"Docker-Content-Digest": manifest_digest})
            if kind == "blobs" and ref in blobs:
                return self.answer(200, blobs[ref], "application/octet-stream", {"Docker-Content-Digest": ref},
                                   throttle=ref == layer_digest)
            return self.not_found("BLOB_UNKNOWN")

        do_HEAD = do_GET

        def log_message(self, fmt, *a):
            pass

        def log_error(self, fmt, *a):
            pass

        def log_request(self, code="-", size="-"):
            # Docker tries TLS first: that request is no HTTP, and has no command or path.
            sys.stderr.write(f"{code} {getattr(self, 'command', '-')} {getattr(self, 'path', '-')}\n")
            sys.stderr.flush()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print(f"PORT {server.server_address[1]}", flush=True)
    print(f"LAYER {len(blobs[layer_digest])}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
