# A TCP proxy in front of the server (support/tcp_proxy.py) that a test stops and starts again, so
# a client loses its server and gets it back on the same address.
#
#   source "$HERE/support/proxy.sh"     # after lib.sh (poll_until, E2E_TMP); picks PROXY_PORT
#   proxy_start                          # 127.0.0.1:$PROXY_PORT → 127.0.0.1:$PORT
#   proxy_stop                           # safe to call when none runs (the EXIT trap does)

PROXY_SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tcp_proxy.py"
PROXY_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
PROXY_PID=""

proxy_start() {
  : >"$E2E_TMP/proxy.out"  # emptied before the fork: the last proxy's "proxying" must not count
  python3 "$PROXY_SCRIPT" "$PROXY_PORT" "$PORT" >"$E2E_TMP/proxy.out" 2>&1 &
  PROXY_PID=$!
  poll_until 10 "the proxy did not start" grep -q proxying "$E2E_TMP/proxy.out"
}

proxy_stop() {
  [ -n "$PROXY_PID" ] || return 0
  kill "$PROXY_PID" 2>/dev/null || true
  wait "$PROXY_PID" 2>/dev/null || true
  PROXY_PID=""
}
