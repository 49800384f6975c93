#!/usr/bin/env python3
"""An HTTP server for updater tests that serves a tree in a chosen way. usage: PORT ROOT MODE [LOG]
  truncate  paths containing /deltas/ or ending .tar: half the body, then the connection closes
  stall     the same, then no more bytes for a minute
  resume    archives and deltas: the first request gets half and a closed connection; requests with a Range header
            (for any file, as nginx honours them) get 206 and the rest (each Range start is appended to LOG)
  ranges    every body whole, at full speed; requests with a Range header get 206 and the rest (logged as for resume)
  endless   every body 200 without a length once ROOT/.go exists (the test's signal; at most 30 s) or after a 2 s
            pause when the tree has a .wait file, then zeros without end (at most 200 MiB; the bytes sent so far in LOG)
  error-404, error-503  every answer that status, with an HTML body 200 kB longer than the file asked for (each request
             logged, one line per request)
  chunked   every body with Transfer-Encoding: chunked (64 KiB chunks), no Content-Length
  bad-chunks  archives (.tar): Transfer-Encoding: chunked whose first chunk-size line is not hexadecimal ("zz")
  unended   archives (.tar): every byte in chunks (Transfer-Encoding: chunked), then neither the last chunk nor a
            close: the connection stays open and silent for a minute; other files as usual
  endless-range  archives and deltas: the first request gets half and a closed connection; the Range retry gets 206
            from the right offset with Content-Length 18446744073709551615 (2^64 - 1), a body no size can hold
  drip      every body one byte every half second (each gap well inside a read timeout); after 15 s the connection
            closes
  early-hints  every answer is preceded by "103 Early Hints" (flushed on its own, then a pause) and a "100 Continue"
  switch-protocols  every answer is preceded by "101 Switching Protocols" (which is final, not interim)
  endless-continue  "100 Continue" after "100 Continue", one every 50 ms for up to a minute, and never an answer (each
            request logged, one line per request)
  redirect-file  every request is redirected (302) to file:///etc/passwd
  slow      archives and deltas in 64 KiB pieces 20 ms apart (a 5 MB archive takes about 1.6 s), from the start of a
            "Range: bytes=N-" header when there is one (206; each Range start is appended to LOG); other files as usual
PORT 0 (for tests that start it) picks a free port, prints it on the first line of stdout, and exits when stdin closes,
so a test process that dies does not leave the server behind."""
import http.server
import os
import sys
import threading
import time
import urllib.parse

PORT, ROOT, MODE = int(sys.argv[1]), sys.argv[2], sys.argv[3]
LOG = sys.argv[4] if len(sys.argv) > 4 else None
cut_once = set()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if MODE == "redirect-file":
            self.send_response(302)
            self.send_header("Location", "file:///etc/passwd")
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            return
        # A query (a presigned URL's signature) names no other file.
        file_path = urllib.parse.urlsplit(self.path).path
        path = os.path.join(ROOT, file_path.lstrip("/"))
        if not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            return
        data = open(path, "rb").read()
        bulky = "/deltas/" in file_path or file_path.endswith(".tar")
        self.close_connection = True
        if MODE == "early-hints":
            self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </packs/style.css>; rel=preload\r\n\r\n")
            self.wfile.flush()
            time.sleep(0.3)
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            self.wfile.flush()
            time.sleep(0.3)
        if MODE == "endless-continue":
            if LOG:
                with open(LOG, "a") as log:
                    log.write(f"{self.path}\n")
            try:
                for _ in range(1200):
                    self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                    self.wfile.flush()
                    time.sleep(0.05)
            except OSError:
                pass
            return
        if MODE == "switch-protocols":
            self.wfile.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
        if MODE == "endless":
            # The test says when to start (it creates ROOT/.go): a body that must come after some step of the test
            # does, however loaded the machine.
            if os.path.exists(os.path.join(ROOT, ".wait")):
                waited = 0.0
                while not os.path.exists(os.path.join(ROOT, ".go")) and waited < 30:
                    time.sleep(0.05)
                    waited += 0.05
            else:
                time.sleep(2)
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            sent, chunk = 0, b"\0" * 65536
            try:
                while sent < (200 << 20):
                    self.wfile.write(chunk)
                    sent += len(chunk)
                    if LOG and sent % (1 << 20) == 0:
                        with open(LOG, "w") as log:
                            log.write(str(sent))
            except OSError:
                pass
            return
        if MODE in ("error-404", "error-503"):
            if LOG:  # one line per request answered, for tests that count attempts
                with open(LOG, "a") as log:
                    log.write(f"{self.path}\n")
            body = b"<" * (len(data) + 200_000)
            self.send_response(int(MODE[-3:]))
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                self.wfile.write(body)
            except OSError:
                pass
            return
        if MODE == "drip":
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
            started = time.monotonic()
            for i in range(len(data)):
                if time.monotonic() - started > 15:
                    return
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(0.5)
            return
        if MODE == "slow" and bulky:
            wanted = self.headers.get("Range")
            start = int(wanted[6:-1]) if wanted and wanted.startswith("bytes=") and wanted.endswith("-") else 0
            if wanted and LOG:
                with open(LOG, "a") as log:
                    log.write(f"{self.path} {start}\n")
            self.send_response(206 if wanted else 200)
            if wanted:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(data) - start))
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for i in range(start, len(data), 65536):
                    self.wfile.write(data[i:i + 65536])
                    self.wfile.flush()
                    time.sleep(0.02)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        if MODE == "chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            for i in range(0, len(data), 65536):
                piece = data[i:i + 65536]
                self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        if MODE == "bad-chunks" and file_path.endswith(".tar"):
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"zz\r\n" + data[:100] + b"\r\n0\r\n\r\n")
            return
        if MODE == "unended" and file_path.endswith(".tar"):
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(data), 65536):
                piece = data[i:i + 65536]
                self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
            self.wfile.flush()
            time.sleep(60)
            return
        if MODE in ("resume", "endless-range", "ranges") and (bulky or (MODE != "endless-range" and self.headers.get("Range"))):
            wanted = self.headers.get("Range")
            if wanted and wanted.startswith("bytes=") and wanted.endswith("-"):
                start = int(wanted[6:-1])
                if LOG:
                    with open(LOG, "a") as log:
                        log.write(f"{self.path} {start}\n")
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                if MODE == "endless-range":
                    self.send_header("Content-Length", str(2**64 - 1))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(data[start:])
                    return
                self.send_header("Content-Length", str(len(data) - start))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data[start:])
                return
            if self.path not in cut_once and MODE != "ranges":
                cut_once.add(self.path)
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        if MODE in ("truncate", "stall") and bulky:
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            if MODE == "stall":
                time.sleep(60)
            return
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
server.daemon_threads = True
if PORT == 0:
    print(server.server_address[1], flush=True)

    def exit_with_parent():
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=exit_with_parent, daemon=True).start()
server.serve_forever()
