#!/usr/bin/env python3
"""Fault servers for bench/reliability.sh (issue 19). One port, one fault per path:

  /big/v1/...        200 OK, a 200 MB JSON body (chunked), as a runaway VLM
  /bigcl/v1/...      the same with Content-Length: 209715200
  /echo/v1/...       401 whose body echoes the Authorization header and URL
  /hang/v1/...       accepts the request and never answers
  /cl4e9             MJPEG whose part announces Content-Length 4,000,000,000
  /noboundary        MJPEG content type, then bytes without a boundary line
  /headerflood       an endless HTTP response header section
  /slowloris         the MJPEG response head one byte every 2 s

Usage: faultserver.py PORT
"""
import socketserver
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MB = 1 << 20


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def raw(self, b):
        self.wfile.write(b)
        self.wfile.flush()

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)

    def do_POST(self):
        self.body()
        self.handle_fault()

    def do_GET(self):
        self.handle_fault()

    def handle_fault(self):
        p = self.path
        try:
            if p.startswith("/big"):
                total = 200 * MB
                head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                head += "Content-Length: %d\r\n\r\n" % total if p.startswith("/bigcl") else "Connection: close\r\n\r\n"
                self.raw(head.encode())
                self.raw(b'{"id":"')
                chunk = b"x" * (256 << 10)
                sent = 7
                while sent < total:
                    self.raw(chunk)
                    sent += len(chunk)
            elif p.startswith("/echo"):
                msg = ('{"error":{"message":"Incorrect API key provided: %s (%s)","type":"invalid_request_error","code":"invalid_api_key"}}'
                       % (self.headers.get("Authorization", ""), self.path)).encode()
                self.raw(b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(msg) + msg)
            elif p.startswith("/hang"):
                time.sleep(3600)
            elif p.startswith("/cl4e9"):
                self.raw(b"HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=frame\r\n\r\n"
                         b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: 4000000000\r\n\r\n\xff\xd8")
                while True:
                    self.raw(b"\0" * 65536)
            elif p.startswith("/noboundary"):
                self.raw(b"HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=frame\r\n\r\n")
                while True:
                    self.raw(b"no boundary here, just bytes\r\n" * 1024)
            elif p.startswith("/headerflood"):
                self.raw(b"HTTP/1.1 200 OK\r\n")
                while True:
                    self.raw(b"X-Flood: " + b"a" * 100 + b"\r\n")
            elif p.startswith("/slowloris"):
                for c in b"HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=frame\r\n\r\n":
                    self.raw(bytes([c]))
                    time.sleep(2)
            else:
                self.raw(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass


class S(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


if __name__ == "__main__":
    S(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
