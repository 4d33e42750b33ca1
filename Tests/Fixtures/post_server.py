#!/usr/bin/env python3
"""A loopback HTTP server for the post: tests. It prints its port, then answers POSTs by path:
  /ok            200
  /fail/N        500 for the first N requests to that path, then 200
  /status/CODE   CODE
  /hang          never answers (the client's time limit ends it)
Each request is appended to LOG as one JSON line: path, headers, the body in base64, and the time."""
import base64, json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[1]
lock = threading.Lock()
counts = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        with lock:
            counts[self.path] = counts.get(self.path, 0) + 1
            n = counts[self.path]
            with open(LOG, "a") as f:
                f.write(json.dumps({"path": self.path, "headers": dict(self.headers.items()),
                                    "body": base64.b64encode(body).decode(), "t": time.time()}) + "\n")
        parts = self.path.strip("/").split("/")
        code = 200
        if parts[0] == "hang":
            time.sleep(120)
            return
        if parts[0] == "fail" and n <= int(parts[1]):
            code = 500
        if parts[0] == "status":
            code = int(parts[1])
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
