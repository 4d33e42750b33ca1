"""Prepares a Home Assistant configuration folder for the real-Home-Assistant test: the HTTP server
on a loopback port, the recorder and history, the frontend, and an MQTT config entry against the
test's mosquitto; an owner user with a long-lived access token (made as Home Assistant makes one:
a refresh token of type long_lived_access_token and an HS256 JWT signed with its key); onboarding
marked done; and a page under /local/ that hands the token to the frontend, for a headless
browser's screenshot. Prints the access token.

Run with the Home Assistant venv's Python (it has PyJWT):
    home_assistant.py DIR HTTP_PORT MQTT_PORT
"""
import json
import os
import secrets
import sys
import time
import uuid

import jwt


def store(folder, key, data, version=1, minor=1):
    with open(os.path.join(folder, ".storage", key), "w") as f:
        json.dump({"version": version, "minor_version": minor, "key": key, "data": data}, f)


def main():
    folder, http_port, mqtt_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(os.path.join(folder, ".storage"), exist_ok=True)
    os.makedirs(os.path.join(folder, "www"), exist_ok=True)
    with open(os.path.join(folder, "configuration.yaml"), "w") as f:
        f.write(f"""homeassistant:
  name: lookd test
  latitude: 0
  longitude: 0
  elevation: 0
  unit_system: metric
  time_zone: UTC
  country: DE
  currency: EUR
http:
  server_host: 127.0.0.1
  server_port: {http_port}
api:
websocket_api:
config:
frontend:
recorder:
  commit_interval: 0
history:
logbook:
logger:
  default: warning
""")
    user_id, token_id = uuid.uuid4().hex, uuid.uuid4().hex
    jwt_key = secrets.token_hex(64)
    now = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    ten_years = 10 * 365 * 86400
    store(folder, "auth", {
        "users": [{"id": user_id, "group_ids": ["system-admin"], "is_owner": True, "is_active": True, "name": "lookd test",
                   "system_generated": False, "local_only": False}],
        "groups": [{"id": "system-admin", "name": "Administrators"}, {"id": "system-users", "name": "Users"},
                   {"id": "system-read-only", "name": "Read Only"}],
        "credentials": [],
        "refresh_tokens": [{"id": token_id, "user_id": user_id, "client_id": None, "client_name": "lookd test",
                            "client_icon": None, "token_type": "long_lived_access_token", "created_at": now,
                            "access_token_expiration": float(ten_years), "token": secrets.token_hex(64), "jwt_key": jwt_key,
                            "last_used_at": None, "last_used_ip": None, "expire_at": None, "credential_id": None,
                            "version": "2024.2.5"}],
    })
    store(folder, "onboarding", {"done": ["user", "core_config", "analytics", "integration"]}, version=4)
    store(folder, "core.config_entries", {"entries": [{
        "entry_id": uuid.uuid4().hex, "version": 1, "minor_version": 1, "domain": "mqtt", "title": "127.0.0.1",
        "data": {"broker": "127.0.0.1", "port": mqtt_port, "discovery": True, "discovery_prefix": "homeassistant"},
        "options": {}, "pref_disable_new_entities": False, "pref_disable_polling": False, "source": "user",
        "unique_id": None, "disabled_by": None}]})
    issued = int(time.time())
    token = jwt.encode({"iss": token_id, "iat": issued, "exp": issued + ten_years}, jwt_key, algorithm="HS256")
    base = f"http://127.0.0.1:{http_port}"
    tokens = {"access_token": token, "token_type": "Bearer", "expires_in": ten_years, "hassUrl": base,
              "clientId": base + "/", "expires": (issued + ten_years) * 1000, "refresh_token": ""}
    with open(os.path.join(folder, "www", "open.html"), "w") as f:
        f.write("<!doctype html><script>localStorage.setItem('hassTokens', %s);"
                "location.replace(decodeURIComponent(location.hash.slice(1)) || '/');</script>" % json.dumps(json.dumps(tokens)))
    print(token)


if __name__ == "__main__":
    main()
