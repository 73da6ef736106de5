#!/usr/bin/env python3
"""Times every console page on a running server: 100 loads each (after 5 warm-ups), one
keep-alive connection on loopback, so each time is the server's render plus a loopback round
trip (an upper bound of the server's time). Also times the records page against the API query
of the same page (records/query, same type and page size; a unique body each time, so the API's
response cache never answers it).

Usage: console_pages.py BASE_URL CONTAINER API_TOKEN ADMIN PASSWORD [LOADS]
Prints Markdown tables. The comparison times the API query and the console page alternately,
so both see the machine's load at the same moments.
"""
import http.client
import json
import math
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


# The sign-in form carries a CSRF token tied to its cookie (login CSRF): fetch the form first.
response, signin_page = request("GET", "/console/signin")
signin_cookie = response.getheader("Set-Cookie").split(";")[0]
csrf = signin_page.decode().split('name="csrf" value="')[1].split('"')[0]
form = urllib.parse.urlencode({"user": admin, "password": password, "next": "/console/overview", "csrf": csrf})
response, _ = request("POST", "/console/signin", form, {"Content-Type": "application/x-www-form-urlencoded",
                                                        "Cookie": signin_cookie})
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
    ("Records, filter + sort", f"/console/records?{q}&type=Restaurant&field=type&cmp=EQUALS&value=Cafe&sort=name&limit=20"),
    ("Records, filter matching nothing + sort",
     f"/console/records?{q}&type=Restaurant&field=type&cmp=EQUALS&value=Thai&sort=name&limit=20"),
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
    """Nearest rank: the 99th of 100."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]


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


def interleaved(query, page_path):
    """The API query and the console page, one after the other `loads` times: on a machine whose
    load changes from second to second, both see the same load."""
    def body(i):
        # A unique body each time: the API's response cache keys on the bytes, so it never answers.
        return json.dumps({"query": query, "resultsLimit": 20, "benchNonce": i})
    for i in range(5):
        timed("POST", api_path, body(-i - 1), {"Content-Type": "application/json"})
        timed("GET", page_path, headers={"Cookie": cookie})
    api, console = [], []
    for i in range(loads):
        api.append(timed("POST", api_path, body(i), {"Content-Type": "application/json"}))
        console.append(timed("GET", page_path, headers={"Cookie": cookie}))
    return api, console


comparisons = [
    ("first page of 20", {"recordType": "Restaurant"}, "Records, first page (20)"),
    ("type EQUALS Cafe (20,000 of them), sorted by name, 20", {"recordType": "Restaurant",
        "filterBy": [{"fieldName": "type", "comparator": "EQUALS", "fieldValue": {"value": "Cafe"}}],
        "sortBy": [{"fieldName": "name", "ascending": True}]}, "Records, filter + sort"),
    ("type EQUALS Thai (none), sorted by name", {"recordType": "Restaurant",
        "filterBy": [{"fieldName": "type", "comparator": "EQUALS", "fieldValue": {"value": "Thai"}}],
        "sortBy": [{"fieldName": "name", "ascending": True}]}, "Records, filter matching nothing + sort"),
]
print()
print(f"| Same page ({loads} of each, interleaved) | API records/query p50 / p99 ms | Console records page p50 / p99 ms | Console ÷ API (p50, p99) |")
print("|---|---:|---:|---:|")
page_paths = dict(pages)
for label, query, page_name in comparisons:
    api, console = interleaved(query, page_paths[page_name])
    print(f"| {label} | {statistics.median(api):.2f} / {p99(api):.2f} | {statistics.median(console):.2f} / {p99(console):.2f} "
          f"| {statistics.median(console) / statistics.median(api):.2f}× / {p99(console) / p99(api):.2f}× |", flush=True)
worst = max(results, key=lambda name: p99(results[name]))
print()
print(f"Slowest page: {worst}, p99 {p99(results[worst]):.2f} ms (target ≤ 50 ms)")
