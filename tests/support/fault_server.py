#!/usr/bin/env python3
"""A deliberately misbehaving HTTP/1.1 server for the transport fault tests.

Prints "LISTENING <port>" once it accepts connections. The path selects the misbehaviour:

  /html502...         502 with a proxy's HTML page
  /drop...            200 that promises 1000 bytes, sends a few and closes the connection
  /hang...            accepts the request and never answers
  /truncated-json...  complete 200 whose JSON body is cut off
  /echo...            200 JSON describing the request as parsed here (method, path, query, headers)
  /health             {"status": "ok"}
  /execute (POST)     a finished process object
  /reuse/...          answered normally as the first request of a connection; any later request
                      on the same kept-alive connection gets a partial answer and a close, like a
                      server that dropped an idle connection the client reused
  /__log              JSON list of every request seen so far: method, decoded path, query as
                      parsed by urllib, headers, body, connection number

With --tls CERT KEY the same server speaks HTTPS.
"""

import argparse
import json
import socket
import ssl
import sys
import threading
import time
import urllib.parse

LOG = []
LOG_LOCK = threading.Lock()
CONNECTIONS = [0]

HTML_502 = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
            b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
            b"</body>\r\n</html>\r\n")


def read_request(conn, buffer):
    """Returns (method, target, headers, body, rest) or None when the peer closed."""
    while b"\r\n\r\n" not in buffer:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        buffer += chunk
    head, _, rest = buffer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _version = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        rest += chunk
    return method, target, headers, rest[:length], rest[length:]


def response(status, reason, body, content_type="application/json"):
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def json_response(obj, status=200, reason="OK"):
    return response(status, reason, json.dumps(obj).encode())


def handle(conn, connection_number):
    buffer = b""
    served = 0
    try:
        while True:
            request = read_request(conn, buffer)
            if request is None:
                return
            method, target, headers, body, buffer = request
            path, _, query = target.partition("?")
            with LOG_LOCK:
                LOG.append({"method": method, "path": urllib.parse.unquote(path),
                            "raw_path": path,
                            "query": urllib.parse.parse_qsl(query, keep_blank_values=True),
                            "headers": headers, "body": body.decode("utf-8", "replace"),
                            "connection": connection_number, "nth_on_connection": served + 1})
            served += 1

            if path.startswith("/reuse/") and served > 1:
                # Status line and a promise of more, then the connection is gone.
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 200\r\n\r\n{\"st")
                return
            if path.startswith("/html502"):
                conn.sendall(response(502, "Bad Gateway", HTML_502, "text/html"))
            elif path.startswith("/drop"):
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 1000\r\n\r\n{\"id\": \"abc\", ")
                time.sleep(0.2)
                return
            elif path.startswith("/hang"):
                conn.settimeout(None)
                while conn.recv(65536):
                    pass
                return
            elif path.startswith("/truncated-json"):
                conn.sendall(response(200, "OK", b'{"id": "abc", "status": "runn'))
            elif path.startswith("/echo"):
                conn.sendall(json_response({
                    "method": method,
                    "path": urllib.parse.unquote(path),
                    "raw_query": query,
                    "query": urllib.parse.parse_qsl(query, keep_blank_values=True),
                    "headers": headers,
                    "body": body.decode("utf-8", "replace"),
                }))
            elif path == "/health" or path.endswith("/health"):
                conn.sendall(json_response({"status": "ok"}))
            elif path.endswith("/execute") and method == "POST":
                command = json.loads(body or b"{}").get("command", "")
                conn.sendall(json_response({
                    "id": "20261129-093314-df4c3a", "command": command, "status": "done",
                    "exit_code": 0, "output": [{"type": "output", "data": "hi\r\n"}],
                    "truncated": False, "next_offset": 1, "log_path": None}))
            elif path == "/__log":
                with LOG_LOCK:
                    conn.sendall(json_response(list(LOG)))
            else:
                conn.sendall(json_response({"detail": "Not Found"}, 404, "Not Found"))
            if headers.get("connection", "").lower() == "close":
                return
    except (OSError, ValueError, ssl.SSLError):
        return
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = parser.parse_args()

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    context = None
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls[0], args.tls[1])

    print(f"LISTENING {listener.getsockname()[1]}", flush=True)
    while True:
        conn, _ = listener.accept()
        CONNECTIONS[0] += 1
        number = CONNECTIONS[0]

        def serve(raw=conn, n=number):
            stream = raw
            if context is not None:
                try:
                    raw.settimeout(10)
                    stream = context.wrap_socket(raw, server_side=True)
                    stream.settimeout(None)
                except (OSError, ssl.SSLError) as error:
                    print(f"TLS handshake failed: {error}", file=sys.stderr, flush=True)
                    raw.close()
                    return
            handle(stream, n)

        threading.Thread(target=serve, daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
