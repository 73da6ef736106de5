#!/usr/bin/env python3
"""Checks that every acknowledged add is on the server exactly once, with its photo's bytes.

    ckws_verify.py --base URL --container C --api-token T --type Multinode ACKED_FILE...

Pages through records/query (continuationMarker), then downloads each record's photo and
compares its SHA-256 with the one the writer recorded. Prints one summary line; exit 1 on
any missing, duplicated or corrupt record.
"""
import argparse, collections, hashlib, json, sys, urllib.request


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--container", required=True)
    parser.add_argument("--api-token", required=True)
    parser.add_argument("--type", required=True)
    parser.add_argument("acked", nargs="+")
    args = parser.parse_args()
    expected = {}
    for path in args.acked:
        for line in open(path):
            name, digest = line.split()
            expected[name] = digest
    url = f"{args.base}/database/1/{args.container}/development/public/records/query?ckAPIToken={args.api_token}"
    query = {"recordType": "Restaurant", "filterBy": [{"fieldName": "type", "comparator": "EQUALS",
                                                       "fieldValue": {"value": args.type}}]}
    seen = collections.Counter()
    downloads = {}
    marker = None
    while True:
        body = {"query": query, "resultsLimit": 200}
        if marker:
            body["continuationMarker"] = marker
        page = post(url, body)
        for record in page.get("records", []):
            name = record["recordName"]
            seen[name] += 1
            downloads[name] = record["fields"]["image"]["value"]["downloadURL"]
        marker = page.get("continuationMarker")
        if not marker:
            break
    missing = sorted(set(expected) - set(seen))
    duplicated = sorted(name for name, count in seen.items() if count > 1)
    corrupt = []
    for name, digest in expected.items():
        if name not in downloads:
            continue
        with urllib.request.urlopen(downloads[name], timeout=60) as response:
            if hashlib.sha256(response.read()).hexdigest() != digest:
                corrupt.append(name)
    print(f"acknowledged {len(expected)}, on the server {len(seen)}, missing {len(missing)}, "
          f"duplicated {len(duplicated)}, corrupt photos {len(corrupt)}")
    if missing or duplicated or corrupt:
        print("missing:", missing[:10], "duplicated:", duplicated[:10], "corrupt:", corrupt[:10], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
