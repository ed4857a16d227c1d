"""``tarot serve``: the room on a local web server (uvicorn), localhost by default.

Needs the ``web`` extra (starlette, uvicorn, sqlalchemy): ``pip install "tarot_env[web]"``.
"""

from __future__ import annotations

import argparse
import errno
import socket


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; returns the exit status."""
    try:
        import uvicorn

        from tarot_env.web.app import Limits, create_app
        from tarot_env.web.room import Room
    except ModuleNotFoundError as err:
        raise SystemExit(f'tarot serve needs {err.name}, from the web extra: pip install "tarot_env[web]"') from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"tarot serve: listening on {args.host}: people on your network can reach the room (no passwords, no TLS)")
    sock = listen(args.host, args.port)  # before the database: a busy port is said in one line, nothing made
    room = Room(robot_delay=args.robot_delay, reconnect_window=args.reconnect_window, robot_timeout=args.robot_timeout)
    limits = Limits(
        max_connections=args.max_connections,
        per_address=args.max_connections_per_address,
        max_tables=args.max_tables,
        table_idle=args.table_idle,
    )
    try:
        app = create_app(args.db, room=room, records_dir=args.records, limits=limits, allowed_origins=args.allowed_origin or (), warm=True)
    except Exception as err:  # a folder that cannot be made, a file that is not a database ...
        sock.close()
        reason = str(getattr(err, "orig", None) or err).splitlines()[0]
        raise SystemExit(f"tarot serve: cannot open the database {args.db}: {reason}") from None
    print(f"tarot serve: open http://{'localhost' if args.host == '127.0.0.1' else args.host}:{args.port}/  (database {args.db})")
    config = uvicorn.Config(
        app, host=args.host, port=args.port, log_level="warning", ws="websockets-sansio", ws_max_size=MAX_FRAME,
        **proxy_options(args.trusted_proxy),  # type: ignore[arg-type]
    )  # fmt: skip
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def proxy_options(trusted: list[str] | None) -> dict[str, object]:
    """uvicorn's options for forwarded headers: trusted from the proxies named only (``--trusted-proxy``).
    By default uvicorn believes X-Forwarded-For from 127.0.0.1, so anyone on this machine could choose the
    address the room compares (the same-address rule); without a proxy named, no such header is read."""
    if not trusted:
        return {"proxy_headers": False, "forwarded_allow_ips": ""}
    return {"proxy_headers": True, "forwarded_allow_ips": ",".join(trusted)}


#: the largest WebSocket frame the server reads (bytes); the app refuses any message over 4 KiB, this
#: stops a client from making the server buffer megabytes first (uvicorn's default is 16 MiB)
MAX_FRAME = 65536


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, or a one-line :class:`SystemExit` (the port in use, a bad address)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except (OSError, UnicodeError) as err:
        raise SystemExit(f"tarot serve: cannot listen on {host}: {getattr(err, 'strerror', None) or err}") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise SystemExit(
                f"tarot serve: port {port} is in use on {host} (another tarot serve?): stop it or choose another --port"
            ) from None
        raise SystemExit(f"tarot serve: cannot listen on {host}:{port}: {err.strerror or err}") from None
    sock.set_inheritable(True)
    return sock
