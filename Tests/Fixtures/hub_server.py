#!/usr/bin/env python3
"""A local stand-in for the Hugging Face Hub, for the model-pull tests (loopback only).

Serves every repo from one folder: GET /api/models/<org>/<repo>/tree/<rev> lists the folder's files
(size, and lfs.oid = sha256, as the Hub does for large files); GET /<org>/<repo>/resolve/<rev>/<file>
sends a file, honouring Range. Modes: --cut BYTES cuts the first response of each file after BYTES
(the connection just closes); --wrong-sha lists a wrong sha256; --slow BYTES_PER_S sends slowly;
--missing-repo NAME answers 404 for that repo; --endless-listing sends a listing that never ends;
--endless-body sends each file with no Content-Length and then zeros without end; --silent accepts
connections and never answers; --endless-headers answers with a status line and then headers
without end (--endless-headers-slow: one every 0.1 s). Each file request is logged to FOLDER.requests
("name range"). Prints the port it listens on, then serves.
"""
import argparse
import hashlib
import http.server
import json
import os
import re
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("folder")
p.add_argument("--cut", type=int, default=0)
p.add_argument("--wrong-sha", action="store_true")
p.add_argument("--slow", type=int, default=0)
p.add_argument("--missing-repo", default="")
p.add_argument("--endless-listing", action="store_true")
p.add_argument("--endless-body", action="store_true")
p.add_argument("--silent", action="store_true")
p.add_argument("--endless-headers", action="store_true")
p.add_argument("--endless-headers-slow", action="store_true")
args = p.parse_args()
cut_done = set()


class Hub(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def endless(self, first, filler):
        self.close_connection = True
        self.send_response(200)
        self.end_headers()
        try:
            self.wfile.write(first)
            while True:
                self.wfile.write(filler)
        except (BrokenPipeError, ConnectionResetError):
            return

    def do_GET(self):
        if args.silent:
            time.sleep(3600)
            return
        if args.endless_headers or args.endless_headers_slow:
            self.close_connection = True
            try:
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                n = 0
                while True:
                    n += 1
                    self.wfile.write(b"X-Filler-%d: %s\r\n" % (n, b"a" * 40))
                    if args.endless_headers_slow:
                        self.wfile.flush()
                        time.sleep(0.1)
            except (BrokenPipeError, ConnectionResetError):
                return
        m = re.match(r"^/api/models/([^/]+/[^/]+)/tree/([^/]+)$", self.path)
        if m and args.endless_listing:
            return self.endless(b'[{"type": "file", "path": "a.gguf", "size": 1}', b', {"type": "file", "path": "b.gguf", "size": 1}' * 1000)
        if m:
            if m.group(1) == args.missing_repo:
                return self.send_error(404)
            files = []
            for name in sorted(os.listdir(args.folder)):
                path = os.path.join(args.folder, name)
                sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
                if args.wrong_sha:
                    sha = "0" * 64
                size = os.path.getsize(path)
                files.append({"type": "file", "path": name, "size": size, "lfs": {"oid": sha, "size": size}})
            body = json.dumps(files).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        m = re.match(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", self.path)
        if not m or m.group(1) == args.missing_repo:
            return self.send_error(404)
        path = os.path.join(args.folder, m.group(3))
        if not os.path.isfile(path):
            return self.send_error(404)
        data = open(path, "rb").read()
        if args.endless_body:
            return self.endless(data, b"\0" * 65536)
        start = 0
        rng = self.headers.get("Range")
        with open(args.folder.rstrip("/") + ".requests", "a") as f:
            f.write(f"{m.group(3)} {rng or '-'}\n")
        if rng:
            start = int(re.match(r"bytes=(\d+)-", rng).group(1))
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if args.cut and path not in cut_done:
            cut_done.add(path)
            self.wfile.write(body[: args.cut])
            self.wfile.flush()
            self.close_connection = True
            return
        step = 16384
        for i in range(0, len(body), step):
            self.wfile.write(body[i:i + step])
            if args.slow:
                self.wfile.flush()
                time.sleep(step / args.slow)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
print(server.server_address[1], flush=True)
server.serve_forever()
