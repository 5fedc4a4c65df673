#!/usr/bin/env python3
"""The download tests' HTTP server on 127.0.0.1: serves the files of a folder
with range requests (`Range: bytes=N-`), and faults chosen by the first part
of the path, the rest naming the file:

  /FILE                 the file (206 and the rest for a range request)
  /cut-once/FILE        the first request ends the connection after half of
                        what it promised; later ones are served whole
  /wrong/FILE           the same size, one byte changed
  /404/FILE, /403/FILE  that status
  /500-twice/FILE       500 twice, then the file
  /500/FILE             500 always
  /stall/FILE           the headers, then nothing (until the client gives up)
  /norange/FILE         200 and the whole file whatever was asked
  /slow/FILE            the file at about 2 MB/s (a download to kill halfway)
  /trickle/FILE         the file at about 4 KiB/s (a server just above nothing)

Asked as an HTTP proxy (`GET http://host/PATH`), it answers for PATH.

Each request is logged as one line to --log: `GET PATH range=VALUE|- STATUS`.
With --tls CERT KEY it speaks HTTPS. The port it listens on is written to
--port-file once it is ready. Usage:
  http_server.py --root DIR --log FILE --port-file FILE [--tls CERT KEY]"""
import argparse
import http.server
import os
import socketserver
import ssl
import sys
import threading
import time

COUNTS = {}
LOCK = threading.Lock()


def count(key):
    with LOCK:
        COUNTS[key] = COUNTS.get(key, 0) + 1
        return COUNTS[key]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def log(self, status):
        with LOCK, open(self.server.log_file, "a") as log:
            log.write(f"GET {self.path} range={self.headers.get('Range') or '-'} {status}\n")

    def fail(self, status):
        self.log(status)
        body = f"{status}\n".encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path
        if path.startswith("http://"):  # asked as a proxy: the URL's path names the file
            path = "/" + path.split("/", 3)[3]
        parts = path.lstrip("/").split("/", 1)
        fault, name = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
        file = os.path.join(self.server.root, os.path.basename(name))
        if fault in ("404", "403"):
            return self.fail(int(fault))
        if fault == "500" or (fault == "500-twice" and count(self.path) <= 2):
            return self.fail(500)
        if not os.path.isfile(file):
            return self.fail(404)
        with open(file, "rb") as f:
            data = f.read()
        if fault == "wrong":
            data = data[:-1] + bytes([data[-1] ^ 0xFF])
        start = 0
        requested = self.headers.get("Range")
        if requested and fault != "norange":
            start = int(requested.split("=", 1)[1].split("-", 1)[0])
            if start >= len(data):
                return self.fail(416)
        status = 206 if start else 200
        self.log(status)
        self.send_response(status)
        self.send_header("Content-Length", str(len(data) - start))
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.send_header("Accept-Ranges", "none" if fault == "norange" else "bytes")
        self.end_headers()
        body = memoryview(data)[start:]
        if fault == "stall":
            time.sleep(600)
            return
        if fault == "cut-once" and count(self.path) == 1:
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        step = 1024 if fault == "trickle" else 64 * 1024
        for offset in range(0, len(body), step):
            self.wfile.write(body[offset:offset + step])
            if fault == "slow":
                time.sleep(step / 2e6)
            if fault == "trickle":
                self.wfile.flush()
                time.sleep(0.25)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a client that went away (killed, or gave up on a stall) is part of the tests


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = parser.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    server.root = args.root
    server.log_file = args.log
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*args.tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
