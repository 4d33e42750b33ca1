"""A screenshot of a page that keeps loading after its first paint (Home Assistant's frontend, which
fills itself over a websocket): headless Chromium with its DevTools port, a wait, then
Page.captureScreenshot. Run with a Python that has aiohttp (the Home Assistant venv's):
    screenshot.py URL OUT.png SECONDS [WIDTH HEIGHT]
"""
import asyncio
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

import aiohttp


async def main():
    url, out, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    width, height = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else (1280, 900)
    profile = tempfile.mkdtemp(prefix="lookd-shot-")
    chromium = subprocess.Popen(
        ["/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={width},{height}",
         "--remote-debugging-port=0", f"--user-data-dir={profile}", url],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not os.path.exists(port_file) and time.time() < deadline:
            await asyncio.sleep(0.1)
        port = int(open(port_file).read().split()[0])
        await asyncio.sleep(seconds)
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as r:
                pages = [t for t in await r.json() if t["type"] == "page"]
            async with session.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                await ws.send_str(json.dumps({"id": 1, "method": "Page.captureScreenshot", "params": {"format": "png"}}))
                while True:
                    message = json.loads((await ws.receive()).data)
                    if message.get("id") == 1:
                        break
        with open(out, "wb") as f:
            f.write(base64.b64decode(message["result"]["data"]))
    finally:
        chromium.terminate()
        chromium.wait()


asyncio.run(main())
