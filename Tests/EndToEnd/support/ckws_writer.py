#!/usr/bin/env python3
"""One writer process for the multi-node tests: N restaurants, each with its own photo.

    ckws_writer.py --bases URL1,URL2 --container C --api-token T --user-token W --writer 3 --count 100 --out FILE

Each add is the CloudKit Web Services sequence an app performs: assets/upload for an upload
URL, the bytes to that URL, then records/modify `create` with the receipt, under a
client-chosen record name. Adds alternate over the given base URLs (nodes or a balancer).
A failed step is retried from the upload (a create that answers EXISTS was already saved),
so each record is saved exactly once. Every acknowledged name and its photo's SHA-256 is
written to FILE, one `name sha256` per line.
"""
import argparse, hashlib, json, os, sys, time, urllib.error, urllib.request


def call(url, body, timeout=30):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw or b"{}")
        except ValueError:
            return error.code, {"raw": raw[:200].decode(errors="replace")}


def add(base, args, name, photo):
    db = f"{base}/database/1/{args.container}/development/public"
    auth = f"?ckAPIToken={args.api_token}&ckWebAuthToken={args.user_token}"
    status, body = call(db + "/assets/upload" + auth,
                        {"tokens": [{"recordName": name, "recordType": "Restaurant", "fieldName": "image"}]})
    if status != 200:
        raise RuntimeError(f"assets/upload HTTP {status}: {body}")
    status, body = call(body["tokens"][0]["url"], photo)
    if status != 200:
        raise RuntimeError(f"upload HTTP {status}: {body}")
    asset = body["singleFile"]
    record = {"recordName": name, "recordType": "Restaurant",
              "fields": {"name": {"value": name}, "type": {"value": "Multinode"},
                         "image": {"value": asset, "type": "ASSETID"}}}
    status, body = call(db + "/records/modify" + auth, {"operations": [{"operationType": "create", "record": record}]})
    if status != 200:
        raise RuntimeError(f"records/modify HTTP {status}: {body}")
    result = body["records"][0]
    if "serverErrorCode" in result and result["serverErrorCode"] != "EXISTS":
        raise RuntimeError(f"create {name}: {result}")


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--bases", "--container", "--api-token", "--user-token", "--out"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--writer", type=int, required=True)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--deadline", type=float, default=300)
    args = parser.parse_args()
    bases = args.bases.split(",")
    stop_at = time.monotonic() + args.deadline
    with open(args.out, "w") as out:
        for i in range(args.count):
            name = f"mn-w{args.writer}-{i:03d}"
            photo = os.urandom(2048) + name.encode()
            attempt = 0
            while True:
                try:
                    add(bases[(i + attempt) % len(bases)], args, name, photo)
                    break
                except (OSError, RuntimeError, KeyError, ValueError) as error:
                    attempt += 1
                    if time.monotonic() > stop_at:
                        print(f"writer {args.writer}: gave up on {name}: {error}", file=sys.stderr)
                        return 1
                    time.sleep(min(2.0, 0.05 * 2 ** min(attempt, 5)))  # backoff before the retry
            out.write(f"{name} {hashlib.sha256(photo).hexdigest()}\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
