#!/usr/bin/env python3
"""A loopback HTTP stream that turns to garbage, for the stream tests. It prints its port, then
answers each GET with START (an MPEG-TS file), paced like a live stream, and then random bytes
without end: data keeps coming, and no picture comes of it."""
import http.server, os, sys, time

START = open(sys.argv[1], "rb").read()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "video/mp2t")
        self.end_headers()
        try:
            for i in range(0, len(START), 18800):
                self.wfile.write(START[i:i + 18800])
                self.wfile.flush()
                time.sleep(0.04)
            while True:
                self.wfile.write(os.urandom(20000))
                self.wfile.flush()
                time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
