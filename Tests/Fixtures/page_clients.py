#!/usr/bin/env python3
"""Clients of lookd's page for the tests, started against http://127.0.0.1:PORT:
  pages N SECONDS    N pages: each reads /api/events and fetches /frame.jpg on each frame event
  stalled N SECONDS  N clients that ask for /api/events and never read a byte
It prints "ready" once all are connected, then holds for SECONDS and prints what the pages read."""
import socket, sys, threading, time

port, mode, count, seconds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
frames = [0] * count
socks = []


def request(path, version="1.1"):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(f"GET {path} HTTP/{version}\r\nHost: lookd\r\n\r\n".encode())
    return s


def page(i):
    s = request("/api/events")
    buf = b""
    end = time.time() + seconds
    s.settimeout(1)
    while time.time() < end:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        if not chunk:
            break
        buf += chunk
        while b"\n\n" in buf:
            event, buf = buf.split(b"\n\n", 1)
            if b"event: frame" in event:
                # HTTP/1.0: the server closes the connection after the picture.
                image = request("/frame.jpg", "1.0")
                image.settimeout(5)
                try:
                    while image.recv(65536):
                        pass
                except OSError:
                    pass
                image.close()
                frames[i] += 1
    s.close()


if mode == "pages":
    threads = [threading.Thread(target=page, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    print("ready", flush=True)
    for t in threads:
        t.join()
    print("frames seen", sum(frames), flush=True)
else:
    for _ in range(count):
        try:
            s = request("/api/events")
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            socks.append(s)
        except OSError as e:
            print("refused", e, flush=True)
    print("ready", len(socks), flush=True)
    time.sleep(seconds)
