#!/usr/bin/env python3
"""A stand-in OpenAI-compatible server for the remote engine's faults. It prints its port, then
answers POST /v1/chat/completions as the file MODE says (read at each request; one word):
  ok          streams ANSWER (the file ANSWER, "1. Yes" when absent) word by word, then [DONE]
  500         HTTP 500 with an error message
  hang-first  200 and the stream's headers, then nothing
  hang-mid    200, one piece of the answer, then nothing
  close       closes the connection without a word
  garbage     200 and a stream whose data is not JSON
  endless     200 and a stream of the word "yes" without end (for 60 s at most)
  huge        200 and a stream of 300 KB pieces (64 of them), as a server that ignores max_tokens's size
  whole       200 and the answer as one JSON object, as a server that does not stream sends it
  html        200 and a web page
Any mode: a model other than "tiny" gets 404 with {"error": {"message": "model '…' not found"}}.
Each request is counted in the file COUNT."""
import json, os, socket, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

folder = sys.argv[1]


def read(name, default):
    try:
        with open(os.path.join(folder, name)) as f:
            return f.read().strip() or default
    except OSError:
        return default


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def chunk(self, data):
        self.wfile.write(f"data: {data}\n\n".encode())
        self.wfile.flush()

    def send_json(self, status, message):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(message)))
        self.end_headers()
        self.wfile.write(message)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        count = int(read("COUNT", "0")) + 1
        with open(os.path.join(folder, "COUNT"), "w") as f:
            f.write(str(count))
        mode = read("MODE", "ok")
        if body.get("model") != "tiny":
            message = json.dumps({"error": {"message": f"model '{body.get('model')}' not found", "code": 404}}).encode()
            return self.send_json(404, message)
        if mode == "close":
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if mode == "500":
            return self.send_json(500, b'{"error": {"message": "the GPU is on fire"}}')
        if mode == "whole":
            answer = read("ANSWER", "1. Yes").replace("\\n", "\n")
            return self.send_json(200, json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
                                                  "usage": {"prompt_tokens": 100, "completion_tokens": 3}}).encode())
        if mode == "html":
            page = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Sign in to the proxy</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        words = read("ANSWER", "1. Yes").replace("\\n", "\n").split(" ")
        if mode == "hang-first":
            time.sleep(60)
            return
        if mode == "garbage":
            self.chunk("{this is not json")
            return
        if mode == "huge":
            try:
                for _ in range(64):
                    self.chunk(json.dumps({"choices": [{"index": 0, "delta": {"content": "yes " * 75000}, "finish_reason": None}]}))
            except OSError:
                pass
            return
        if mode == "endless":
            until = time.time() + 60
            try:
                while time.time() < until:
                    self.chunk(json.dumps({"choices": [{"index": 0, "delta": {"content": " yes"}, "finish_reason": None}]}))
            except OSError:
                pass
            return
        for i, word in enumerate(words):
            piece = word if i == 0 else " " + word
            self.chunk(json.dumps({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}))
            if mode == "hang-mid":
                time.sleep(60)
                return
        self.chunk(json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
        self.chunk(json.dumps({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": len(words)}}))
        self.chunk("[DONE]")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
