#!/usr/bin/env python3
"""Any node serves any request: state a client carries from one node works on the other.

    anynode.py NODE1 NODE2 CONTAINER API_TOKEN USER_TOKEN

- a query's continuation marker from node 1 continues on node 2, the same page node 1 gives;
- an SSE stream opened on node 2 with a Last-Event-ID seen on node 1 replays what came after it;
- an upload URL issued by node 1 takes the bytes on node 2, and the record's downloadURL from
  node 2 serves them from node 1;
- a web auth token works on both (every call here carries it).
Prints one `ok - …` line per check; exits 1 with `FAIL: …` on the first failure.
"""
import http.client, json, os, sys, time, urllib.parse, urllib.request

node1, node2, container, api, user = sys.argv[1:6]
auth = f"ckAPIToken={api}&ckWebAuthToken={user}"
db = f"/database/1/{container}/development/public"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def post(url, body, raw=None):
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def on(node, url):
    """The same URL on another node (upload and download URLs name the node that issued them)."""
    parts, target = urllib.parse.urlsplit(url), urllib.parse.urlsplit(node)
    return urllib.parse.urlunsplit((parts.scheme, target.netloc, parts.path, parts.query, parts.fragment))


run = str(int(time.time() * 1000))
# Twelve restaurants, then pages of five newest first.
post(f"{node1}{db}/records/modify?{auth}", {"operations": [
    {"operationType": "create", "record": {"recordName": f"any-{run}-{i:02d}", "recordType": "Restaurant",
                                           "fields": {"name": {"value": f"Any {i:02d}"}}}} for i in range(12)]})
query = {"query": {"recordType": "Restaurant", "sortBy": [{"fieldName": "___createTime", "ascending": False}]},
         "resultsLimit": 5, "desiredKeys": ["name"]}
first = post(f"{node1}{db}/records/query?{auth}", query)
marker = first.get("continuationMarker") or fail("no continuation marker from node 1")
names = lambda page: [r["recordName"] for r in page["records"]]
on_node2 = post(f"{node2}{db}/records/query?{auth}", dict(query, continuationMarker=marker))
on_node1 = post(f"{node1}{db}/records/query?{auth}", dict(query, continuationMarker=marker))
if names(on_node2) != names(on_node1) or len(names(on_node2)) != 5 or set(names(on_node2)) & set(names(first)):
    fail(f"node 2 continued node 1's marker with {names(on_node2)}, node 1 with {names(on_node1)}")
print(f"ok - node 1's continuation marker continues on node 2 with the same page ({', '.join(names(on_node2)[:2])}, …)")

# SSE: an event id seen on node 1, replayed from on node 2.
post(f"{node1}{db}/subscriptions/modify?{auth}", {"operations": [{"operationType": "create", "subscription": {
    "subscriptionID": f"anynode-{run}", "subscriptionType": "query", "query": {"recordType": "Restaurant"},
    "firesOn": ["create"]}}]})


def stream(node, last_event_id=None):
    target = urllib.parse.urlsplit(node)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=20)
    headers = {"Accept": "text/event-stream"}
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id
    connection.request("GET", f"/database/1/{container}/development/notifications?{auth}", headers=headers)
    response = connection.getresponse()
    if response.status != 200:
        fail(f"notifications on {node}: HTTP {response.status}")
    return response


def events(response, wanted, deadline_s=20):
    """(id, data) pairs until `wanted` names have been seen in the data."""
    seen, got, event_id = [], set(), None
    deadline = time.monotonic() + deadline_s
    while got != wanted:
        if time.monotonic() > deadline:
            fail(f"saw {sorted(got)} of {sorted(wanted)}")
        line = response.readline().decode(errors="replace").rstrip("\n")
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            for name in wanted:
                if name in line:
                    got.add(name)
                    seen.append((event_id, name))
    return seen


live = stream(node1)
marker_name = f"sse-{run}-marker"
post(f"{node1}{db}/records/modify?{auth}", {"operations": [{"operationType": "create", "record": {
    "recordName": marker_name, "recordType": "Restaurant", "fields": {"name": {"value": "Marker"}}}}]})
(last_id, _), = events(live, {marker_name})
if not last_id:
    fail("the event on node 1 had no id")
later = {f"sse-{run}-after-{i}" for i in range(3)}
for name in sorted(later):
    post(f"{node1}{db}/records/modify?{auth}", {"operations": [{"operationType": "create", "record": {
        "recordName": name, "recordType": "Restaurant", "fields": {"name": {"value": name}}}}]})
replayed = events(stream(node2, last_id), later)
if any(name == marker_name for _, name in replayed):
    fail("node 2 replayed the event before the Last-Event-ID")
print(f"ok - an SSE stream on node 2 with node 1's Last-Event-ID {last_id} replays the {len(later)} saves after it")

# Assets: the upload URL from node 1, the bytes posted to node 2, the download URL from node 2 read on node 1.
photo = os.urandom(200_000)
token = post(f"{node1}{db}/assets/upload?{auth}", {"tokens": [
    {"recordName": f"photo-{run}", "recordType": "Restaurant", "fieldName": "image"}]})["tokens"][0]
single = post(on(node2, token["url"]), None, raw=photo)["singleFile"]
saved = post(f"{node2}{db}/records/modify?{auth}", {"operations": [{"operationType": "create", "record": {
    "recordName": f"photo-{run}", "recordType": "Restaurant",
    "fields": {"name": {"value": "Photo"}, "image": {"value": single, "type": "ASSETID"}}}}]})["records"][0]
download = saved["fields"]["image"]["value"]["downloadURL"]
with urllib.request.urlopen(on(node1, download), timeout=30) as response:
    if response.read() != photo:
        fail("node 1 served other bytes for node 2's download URL")
print("ok - node 1's upload URL takes the bytes on node 2, and node 2's download URL serves them from node 1, byte for byte")
