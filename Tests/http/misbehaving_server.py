#!/usr/bin/env python3
"""A deliberately bad HTTP server for updater tests: serves a tree, but for paths containing /deltas/ it either sends
half the body and closes (MODE=truncate) or sends half and then stalls (MODE=stall). usage: PORT ROOT MODE"""
import http.server
import os
import sys
import time

PORT, ROOT, MODE = int(sys.argv[1]), sys.argv[2], sys.argv[3]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = os.path.join(ROOT, self.path.lstrip("/"))
        if not os.path.isfile(path):
            self.send_error(404)
            return
        data = open(path, "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if "/deltas/" not in self.path and not self.path.endswith(".tar"):
            self.wfile.write(data)
            return
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()
        if MODE == "stall":
            time.sleep(60)
        self.close_connection = True

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
