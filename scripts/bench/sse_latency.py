#!/usr/bin/env python3
"""Commit-to-delivery latency across nodes: saves through one node, SSE stream on another.

    sse_latency.py --writer URL --reader URL --container C --api-token T --user-token W [--saves 200]

Subscribes the user to new restaurants, holds the SSE stream on the reader node, then saves
restaurants one at a time through the writer node. Each latency is from just before the save's
request is sent to the arrival of its event on the stream (so it includes the save itself).
Prints `p50 p99 max` in milliseconds and the count.
"""
import argparse, http.client, json, statistics, sys, threading, time, urllib.parse, urllib.request


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--writer", "--reader", "--container", "--api-token", "--user-token"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--saves", type=int, default=200)
    args = parser.parse_args()
    auth = f"ckAPIToken={args.api_token}&ckWebAuthToken={args.user_token}"
    db = f"/database/1/{args.container}/development/public"
    post(f"{args.writer}{db}/subscriptions/modify?{auth}", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionID": "bench-latency", "subscriptionType": "query", "query": {"recordType": "Restaurant"},
        "firesOn": ["create"]}}]})

    arrived = {}
    lock = threading.Lock()
    ready = threading.Event()
    reader = urllib.parse.urlparse(args.reader)

    def listen():
        connection = http.client.HTTPConnection(reader.hostname, reader.port, timeout=120)
        connection.request("GET", f"/database/1/{args.container}/development/notifications?{auth}",
                           headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        ready.set()
        while True:
            line = response.readline()
            if not line:
                return
            text = line.decode(errors="replace")
            if text.startswith("data:") and "bench-lat-" in text:
                at = time.monotonic()
                name = text[text.index("bench-lat-"):].split('"')[0]
                with lock:
                    arrived.setdefault(name, at)

    threading.Thread(target=listen, daemon=True).start()
    if not ready.wait(30):
        print("the SSE stream did not open", file=sys.stderr)
        return 1
    # The stream is open once headers arrive; one warm-up save proves delivery before timing.
    latencies = []
    run = int(time.time())
    for i in range(-1, args.saves):
        name = f"bench-lat-{run}-{i}"
        sent = time.monotonic()
        post(f"{args.writer}{db}/records/modify?{auth}", {"operations": [{"operationType": "create", "record": {
            "recordName": name, "recordType": "Restaurant", "fields": {"name": {"value": name}}}}]})
        deadline = sent + 10
        while time.monotonic() < deadline:
            with lock:
                if name in arrived:
                    break
            time.sleep(0.0005)  # poll interval for the listener thread's result
        with lock:
            at = arrived.get(name)
        if at is None:
            print(f"{name} was not delivered within 10 s", file=sys.stderr)
            return 1
        if i >= 0:
            latencies.append((at - sent) * 1000)
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"{statistics.median(latencies):.1f} {p99:.1f} {latencies[-1]:.1f} {len(latencies)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
