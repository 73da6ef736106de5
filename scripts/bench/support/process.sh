# Helpers for benchmarks that start servers: a free loopback port, a bounded wait, CPU ticks.
#
#   source scripts/bench/support/process.sh
#   port="$(free_port)"
#   wait_for 60 curl -s -o /dev/null "http://127.0.0.1:$port/"   # polls every 50 ms, fails after 60 s
#   before="$(cpu_ticks "$pid")"                                  # user + system, in clock ticks

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { local deadline=$((SECONDS + $1)); shift; until "$@" >/dev/null 2>&1; do [ "$SECONDS" -lt "$deadline" ] || return 1; sleep 0.05; done; }
# A process that has exited counts 0.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
