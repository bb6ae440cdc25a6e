#!/usr/bin/python3
"""A small stand-in for APNs over HTTP/2, for Tidings' APNs client tests.

Usage: apns_stand_in.py [CERT.pem KEY.pem]. With a certificate it speaks HTTP/2 over TLS (ALPN h2), as
APNs does; without, h2c with prior knowledge. Listens on 127.0.0.1 on a free port and prints the port. Exits when stdin closes, so the
test process that started it cannot leave it behind.

Answers POST /3/device/<token> by the token's prefix:
  gone...          410 {"reason":"Unregistered","timestamp":1700000000000}
  bad...           400 {"reason":"BadDeviceToken"}
  busy...          429 {"reason":"TooManyRequests"} with retry-after: 7
  oops...          500 {"reason":"InternalServerError"}
  expired...       403 {"reason":"ExpiredProviderToken"} the first time for that token, then 200
  alwaysexpired... 403 {"reason":"ExpiredProviderToken"} every time
  slow...          200 after 5 seconds
  hold...          200 after 45 seconds: a stream that stays open until its connection is cut, however
                   loaded the machine
  drop...          no answer: the connection it came on is cut, failing every stream in flight on it
  anything else    200 with the request's apns-id
APNS_STAND_IN_MAX_STREAMS in the environment sets the streams a connection grants (default 1000), and
APNS_STAND_IN_RAISE_AFTER=N raises every connection's to 1000 after N pushes in all, as APNs does.
GET /stats gives {"connections": n, "open": n, "requests": n} (connections ever accepted, open now); GET
/recorded/<token> the last request headers for it.
"""
import asyncio
import json
import os
import ssl
import sys
import threading

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

STATE = {"connections": 0, "open": 0, "requests": 0}
# The stream window each connection grants (SETTINGS_MAX_CONCURRENT_STREAMS); APNS_STAND_IN_MAX_STREAMS lowers it.
MAX_STREAMS = int(os.environ.get("APNS_STAND_IN_MAX_STREAMS", "1000"))
# After this many pushes in all, every connection raises its window to 1000, as APNs does after the first
# requests; APNS_STAND_IN_RAISE_AFTER sets it (never by default).
RAISE_AFTER = int(os.environ.get("APNS_STAND_IN_RAISE_AFTER", "0"))
RAISED = False
CONNECTIONS = set()
RECORDED = {}
EXPIRED_ONCE = set()


def scripted(token, headers):
    if token.startswith("gone"):
        return 410, {"reason": "Unregistered", "timestamp": 1700000000000}, {}
    if token.startswith("bad"):
        return 400, {"reason": "BadDeviceToken"}, {}
    if token.startswith("busy"):
        return 429, {"reason": "TooManyRequests"}, {"retry-after": "7"}
    if token.startswith("oops"):
        return 500, {"reason": "InternalServerError"}, {}
    if token.startswith("alwaysexpired"):
        return 403, {"reason": "ExpiredProviderToken"}, {}
    if token.startswith("expired") and token not in EXPIRED_ONCE:
        EXPIRED_ONCE.add(token)
        return 403, {"reason": "ExpiredProviderToken"}, {}
    return 200, None, {}


class Connection:
    def __init__(self, reader, writer):
        self.reader = reader
        self.writer = writer
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.streams = {}

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.writer.write(data)

    def respond(self, stream_id, status, body, extra):
        headers = [(":status", str(status))] + list(extra.items())
        payload = json.dumps(body).encode() if body is not None else b""
        if payload:
            headers.append(("content-type", "application/json"))
        headers.append(("content-length", str(len(payload))))
        try:
            self.conn.send_headers(stream_id, headers, end_stream=not payload)
            if payload:
                self.conn.send_data(stream_id, payload, end_stream=True)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            return
        self.flush()

    async def respond_later(self, stream_id, status, body, extra, seconds):
        await asyncio.sleep(seconds)
        self.respond(stream_id, status, body, extra)

    def request_done(self, stream_id, headers, body):
        path = headers.get(":path", "")
        if path == "/stats":
            self.respond(stream_id, 200, dict(STATE), {})
            return
        if path.startswith("/recorded/"):
            token = path[len("/recorded/"):]
            self.respond(stream_id, 200 if token in RECORDED else 404, RECORDED.get(token, {}), {})
            return
        if not path.startswith("/3/device/"):
            self.respond(stream_id, 404, {"reason": "BadPath"}, {})
            return
        token = path[len("/3/device/"):]
        STATE["requests"] += 1
        global RAISED
        if RAISE_AFTER and not RAISED and STATE["requests"] >= RAISE_AFTER:
            RAISED = True
            for connection in CONNECTIONS:
                connection.conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
                connection.flush()
        recorded = dict(headers)
        recorded["body-length"] = str(len(body))
        RECORDED[token] = recorded
        if token.startswith("drop"):
            self.writer.transport.abort()
            return
        status, error, extra = scripted(token, headers)
        extra = dict(extra)
        if "apns-id" in headers:
            extra["apns-id"] = headers["apns-id"]
        if token.startswith("slow") or token.startswith("hold"):
            seconds = 5 if token.startswith("slow") else 45
            asyncio.ensure_future(self.respond_later(stream_id, status, error, extra, seconds))
        else:
            self.respond(stream_id, status, error, extra)

    async def run(self):
        STATE["connections"] += 1
        STATE["open"] += 1
        CONNECTIONS.add(self)
        self.conn.initiate_connection()
        self.conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: MAX_STREAMS})
        self.flush()
        try:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    break
                try:
                    events = self.conn.receive_data(data)
                except h2.exceptions.ProtocolError:
                    self.flush()
                    break
                for event in events:
                    if isinstance(event, h2.events.RequestReceived):
                        self.streams[event.stream_id] = (dict(event.headers), bytearray())
                    elif isinstance(event, h2.events.DataReceived):
                        if event.stream_id in self.streams:
                            self.streams[event.stream_id][1].extend(event.data)
                        self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        if event.stream_id in self.streams:
                            headers, body = self.streams.pop(event.stream_id)
                            self.request_done(event.stream_id, headers, bytes(body))
                    elif isinstance(event, h2.events.StreamReset):
                        self.streams.pop(event.stream_id, None)
                self.flush()
                await self.writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            STATE["open"] -= 1
            CONNECTIONS.discard(self)
            self.writer.close()


def exit_when_stdin_closes():
    sys.stdin.read()
    os._exit(0)


async def main():
    context = None
    if len(sys.argv) == 3:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        context.set_alpn_protocols(["h2"])
    server = await asyncio.start_server(lambda r, w: Connection(r, w).run(), "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    print(port, flush=True)
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
