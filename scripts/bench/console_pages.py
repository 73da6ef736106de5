#!/usr/bin/env python3
"""Times every console page on a running server: 100 loads each (after 5 warm-ups), one
keep-alive connection on loopback, so each time is the server's render plus a loopback round
trip (an upper bound of the server's time). Also times the records page against the API query
of the same page (records/query, same type and page size; a unique body each time, so the API's
response cache never answers it).

Usage: console_pages.py BASE_URL CONTAINER API_TOKEN ADMIN PASSWORD [LOADS]
Prints a Markdown table.
"""
import http.client
import json
import statistics
import sys
import time
import urllib.parse

base, container, token, admin, password = sys.argv[1:6]
loads = int(sys.argv[6]) if len(sys.argv) > 6 else 100
host = urllib.parse.urlparse(base)
connection = http.client.HTTPConnection(host.hostname, host.port, timeout=60)


def request(method, path, body=None, headers=None):
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    return response, data


form = urllib.parse.urlencode({"user": admin, "password": password, "next": "/console/overview"})
response, _ = request("POST", "/console/signin", form, {"Content-Type": "application/x-www-form-urlencoded"})
cookie = response.getheader("Set-Cookie").split(";")[0]
assert response.status == 303 and cookie.startswith("localcloud_console="), response.status
q = f"c={container}&env=development"
_, page = request("GET", f"/console/records?{q}&type=Restaurant&limit=20", headers={"Cookie": cookie})
marker = page.decode().split('id="next-page"')[0].rsplit('href="', 1)[1].split('"')[0].replace("&amp;", "&")
record = page.decode().split('class="record-link">')[1].split("<")[0]

pages = [
    ("Overview", f"/console/overview?{q}"),
    ("Schema", f"/console/schema?{q}"),
    ("Deploy (diff)", f"/console/deploy?{q}"),
    ("Records, first page (20)", f"/console/records?{q}&type=Restaurant&limit=20"),
    ("Records, next page (marker)", marker),
    ("Records, filter + sort", f"/console/records?{q}&type=Restaurant&field=type&cmp=EQUALS&value=Thai&sort=name&limit=20"),
    ("Record page", f"/console/record?{q}&name={urllib.parse.quote(record)}"),
    ("Zones & subscriptions", f"/console/zones?{q}"),
    ("Tokens & users", f"/console/people?{q}"),
    ("Logs", f"/console/logs?{q}"),
    ("Logs (live poll, JSON)", f"/console/logs.json?{q}&after=0"),
    ("Telemetry", f"/console/telemetry?{q}"),
    ("Telemetry chart (SVG)", "/console/telemetry/latency.svg"),
    ("Audit log", f"/console/audit?{q}"),
]


def timed(method, path, body=None, headers=None):
    start = time.perf_counter()
    response, data = request(method, path, body, headers)
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status == 200, (path, response.status, data[:200])
    return elapsed


def p99(samples):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.99 * len(ordered) + 0.5)) - 1)]


print(f"| Page ({loads} loads) | p50 ms | p99 ms | max ms |")
print("|---|---:|---:|---:|")
results = {}
for name, path in pages:
    for _ in range(5):
        timed("GET", path, headers={"Cookie": cookie})
    samples = [timed("GET", path, headers={"Cookie": cookie}) for _ in range(loads)]
    results[name] = samples
    print(f"| {name} | {statistics.median(samples):.2f} | {p99(samples):.2f} | {max(samples):.2f} |", flush=True)

api_path = f"/database/1/{container}/development/public/records/query?ckAPIToken={token}"
def api_body(i):
    return json.dumps({"query": {"recordType": "Restaurant"}, "resultsLimit": 20, "zoneID": {"zoneName": "_defaultZone"},
                       "desiredKeys": None, "benchNonce": i})
for i in range(5):
    timed("POST", api_path, api_body(-i - 1), {"Content-Type": "application/json"})
api = [timed("POST", api_path, api_body(i), {"Content-Type": "application/json"}) for i in range(loads)]
console = results["Records, first page (20)"]
print()
print("| Same page of 20 restaurants | p50 ms | p99 ms |")
print("|---|---:|---:|")
print(f"| API records/query (cache missed) | {statistics.median(api):.2f} | {p99(api):.2f} |")
print(f"| Console records page (HTML) | {statistics.median(console):.2f} | {p99(console):.2f} |")
print(f"| Console / API | {statistics.median(console) / statistics.median(api):.2f}× | {p99(console) / p99(api):.2f}× |")
worst = max(p99(s) for s in results.values())
print()
print(f"Slowest page p99: {worst:.2f} ms (target ≤ 50 ms)")
