"""Raw HTTP/1.1 over a socket, for the server's tests: what a slow, partial or hostile
client sends, byte by byte, and what the server answered (its status, its JSON body)."""
import json
import socket


def port_of(base):
    return int(base.rsplit(":", 1)[1])


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def request(method, path, body=b"", headers=()):
    head = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1"] + list(headers)
    if body or method == "POST":
        head += ["Content-Type: application/json", "Content-Length: %d" % len(body)]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def answer(sock, timeout=5.0):
    """Everything the server sends until it closes the connection or goes quiet."""
    sock.settimeout(timeout)
    got = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
            if b"\r\n\r\n" in got and b"content-length" in got.lower():
                head, _, rest = got.partition(b"\r\n\r\n")
                n = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                if len(rest) >= n:
                    break
    except (socket.timeout, ConnectionResetError):
        pass
    return got


def first_status(sock, timeout=2.0):
    """The status of what the server began to answer (an event stream never ends)."""
    sock.settimeout(timeout)
    got = b""
    try:
        while b"\r\n" not in got:
            chunk = sock.recv(4096)
            if not chunk:
                break
            got += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    return status(got)


def status(got):
    return int(got.split(b" ", 2)[1]) if got.startswith(b"HTTP/1.1 ") else None


def body_of(got):
    return json.loads(got.partition(b"\r\n\r\n")[2] or b"null")


def exchange(port, data, timeout=5.0):
    """Send ``data`` on a new connection; everything the server answered."""
    with connect(port) as sock:
        sock.sendall(data)
        return answer(sock, timeout)
