# What the server benchmarks (scripts/bench/server.sh, scripts/bench/multinode.sh) share: the
# Discover query, the wrk scripts that replay it and that save unique restaurants, and the
# one-line result those scripts print.
#
#   source scripts/bench/support/wrk.sh
#   wrk_scripts "$TMP"                               # $TMP/post.lua (Discover), $TMP/fresh.lua (Discover, uncached), $TMP/save.lua (creates)
#   wrk -t2 -c32 -d10s --latency -s "$TMP/post.lua" "$URL" | wrk_result   # → "rps p50 p99 errors"

# The Discover page: 50 restaurants, newest first, the list's three fields.
DISCOVER='{"query":{"recordType":"Restaurant","sortBy":[{"fieldName":"___createTime","ascending":false}]},"resultsLimit":50,"desiredKeys":["name","type","location"]}'

# wrk_scripts DIR: writes DIR/post.lua (POSTs $DISCOVER), DIR/fresh.lua (the same query with a
# `bench` key unique per request, which the server ignores, so its response cache, keyed by the
# body, never answers and every page runs the query) and DIR/save.lua (records/modify creates with
# a name unique per run, thread and request: a second run on the same store must not repeat the
# first one's names, or its saves are conflicts); all print `RESULT rps p50 p99 errors`.
wrk_scripts() {
  local done_function
  done_function='done = function(summary, latency, requests)
  io.write(string.format("RESULT %.0f %.2f %.2f %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.timeout))
end'
  # A POST whose body request() builds, numbered per thread (tid) and per request (counter).
  local numbered='wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local counter = 0
local thread_id = 0
-- run: random per wrk run (seeded by the clock), so a second run never repeats the names of the first.
math.randomseed(os.time())
local run = math.random(1, 1e9)
setup = function(thread) thread:set("tid", thread_id); thread:set("run", run); thread_id = thread_id + 1 end
request = function()
  counter = counter + 1'
  cat > "$1/post.lua" <<LUA
wrk.method = "POST"
wrk.body = [[$DISCOVER]]
wrk.headers["Content-Type"] = "application/json"
$done_function
LUA
  cat > "$1/fresh.lua" <<LUA
$numbered
  local body = [=[${DISCOVER%\}}]=] .. string.format(',"bench":"%d-%d"}', tid, counter)
  return wrk.format(nil, nil, nil, body)
end
$done_function
LUA
  cat > "$1/save.lua" <<LUA
$numbered
  local name = string.format("bench-%d-%d-%d", run, tid, counter)
  local body = '{"operations":[{"operationType":"create","record":{"recordName":"' .. name ..
    '","recordType":"Restaurant","fields":{"name":{"value":"Bench ' .. name .. '"},"type":{"value":"Cafe"},"location":{"value":"Bench Street"}}}}]}'
  return wrk.format(nil, nil, nil, body)
end
$done_function
LUA
}

# wrk_result: the RESULT line of wrk's output on stdin, without its label.
wrk_result() { sed -n 's/^RESULT //p'; }
