"""A TCP forwarder: 127.0.0.1:LISTEN → 127.0.0.1:TARGET, one thread pair per connection.

Killing it cuts every connection through it at once: one client's network going down while the
server stays up for everyone else.

    python3 tcp_proxy.py LISTEN_PORT TARGET_PORT
"""
import socket
import sys
import threading
import time


def pipe(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    listen_port, target_port = int(sys.argv[1]), int(sys.argv[2])
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", listen_port))
    server.listen(64)
    print("proxying", flush=True)
    while True:
        client, peer = server.accept()
        # One line per connection, with the time: what a failed test's proxy.out shows.
        print(f"{time.time():.3f} accepted {peer[1]}", flush=True)
        try:
            upstream = socket.create_connection(("127.0.0.1", target_port))
        except OSError:
            client.close()
            continue
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()


main()
