#!/usr/bin/env python3
"""A siege of lookd's page for the tests, against http://127.0.0.1:PORT:
  page_siege.py PORT KIND N WHOLE
KIND is the hostile clients' kind: half (each sends half a request's headers, then a byte a second),
idle (each connects and sends nothing) or streams (each reads /api/events and holds it). N of them
connect first; then WHOLE whole requests for / are made one after another, each given 3 s, while
the hostile ones hold on. It prints "answered A of WHOLE" (and how many hostile ones connected).
After the four: "spread" has each hostile client come from its own 127.x address, and a list of
paths (comma-separated) has the streams spread over them (several cameras' pages)."""
import socket, sys, threading, time

port, kind, count, whole = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
spread = "spread" in sys.argv[5:]
paths = next((a.split(",") for a in sys.argv[5:] if a.startswith("/")), ["/api/events"])
made = 0
hostile = []
stop = False


def connect(source=None):
    return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0) if source else None)


for i in range(count):
    try:
        s = connect(f"127.0.{1 + i // 200}.{2 + i % 200}" if spread else None)
        if kind == "half":
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        elif kind == "streams":
            s.sendall(f"GET {paths[i % len(paths)]} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        hostile.append(s)
    except OSError:
        pass


def trickle():
    # A byte a second on every half-sent request: libmicrohttpd's idle timeout never runs out.
    while not stop:
        for s in hostile:
            try:
                s.send(b"x")
            except OSError:
                pass
        time.sleep(1)


if kind == "half":
    threading.Thread(target=trickle, daemon=True).start()
time.sleep(0.5)
answered = 0
for _ in range(whole):
    try:
        s = connect()
        s.settimeout(3)
        s.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        reply = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
        if reply.startswith(b"HTTP/1.") and b" 200 " in reply.split(b"\r\n", 1)[0]:
            answered += 1
        s.close()
    except OSError:
        pass
stop = True
print(f"answered {answered} of {whole} ({len(hostile)} {kind} connected)", flush=True)
for s in hostile:
    s.close()
