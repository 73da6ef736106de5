#!/usr/bin/env python3
"""Load for the database-restart test: adds (photo upload + create) and Discover queries from
several threads, each response classed as it comes, until a stop file appears.

    restart_load.py --bases URL1,URL2 --container C --api-token T --user-token W \
        --threads 8 --status FILE --stop FILE --out ACKED_FILE

Every response is one of:
  ok     a 2xx answer (a create counts as acknowledged only with no per-record error);
  retry  503 with serverErrorCode TRY_AGAIN_LATER and a retryAfter (in the body, or per record);
  bad    anything else: another status or code, a connection error, no answer within --timeout.
After a retry the thread starts a new add (the old one may or may not have committed; it was
not acknowledged). FILE --status is rewritten as JSON counts while it runs; acknowledged adds
go to --out as `name sha256` lines, for ckws_verify.py. Exit 1 when any response was bad.
"""
import argparse, hashlib, json, os, sys, threading, time, urllib.error, urllib.request

lock = threading.Lock()
counts = {"ok": 0, "retry": 0, "bad": 0, "acked": 0, "max_seconds": 0.0, "max_retry_seconds": 0.0}
bad_examples = []


class Retry(Exception):
    pass


def call(url, body, timeout):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})
    start = time.monotonic()
    try:
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
    except Exception as error:  # a reset, a refusal, a timeout: the server must answer instead
        note("bad", time.monotonic() - start, f"{url.split('?')[0]}: {type(error).__name__}: {error}")
        raise Retry()
    elapsed = time.monotonic() - start
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        body = {"raw": raw[:200].decode(errors="replace")}
    if status == 503 and body.get("serverErrorCode") == "TRY_AGAIN_LATER" and "retryAfter" in body:
        note("retry", elapsed)
        raise Retry()
    if not 200 <= status < 300:
        note("bad", elapsed, f"{url.split('?')[0]}: HTTP {status} {body}")
        raise Retry()
    return elapsed, body


def note(kind, elapsed, detail=None):
    with lock:
        counts[kind] += 1
        counts["max_seconds"] = max(counts["max_seconds"], elapsed)
        if kind == "retry":
            counts["max_retry_seconds"] = max(counts["max_retry_seconds"], elapsed)
        if detail and len(bad_examples) < 20:
            bad_examples.append(detail)


def add(base, args, name, photo):
    """True when the create was acknowledged."""
    db = f"{base}/database/1/{args.container}/development/public"
    auth = f"?ckAPIToken={args.api_token}&ckWebAuthToken={args.user_token}"
    elapsed, body = call(db + "/assets/upload" + auth,
                         {"tokens": [{"recordName": name, "recordType": "Restaurant", "fieldName": "image"}]}, args.timeout)
    note("ok", elapsed)
    elapsed, body = call(body["tokens"][0]["url"], photo, args.timeout)
    note("ok", elapsed)
    record = {"recordName": name, "recordType": "Restaurant",
              "fields": {"name": {"value": name}, "type": {"value": "Restart"},
                         "image": {"value": body["singleFile"], "type": "ASSETID"}}}
    elapsed, body = call(db + "/records/modify" + auth,
                         {"operations": [{"operationType": "create", "record": record}]}, args.timeout)
    result = body["records"][0]
    code = result.get("serverErrorCode")
    if code is None:
        note("ok", elapsed)
        return True
    if code == "TRY_AGAIN_LATER" and "retryAfter" in result:
        note("retry", elapsed)
        return False
    note("bad", elapsed, f"create {name}: {result}")
    return False


def query(base, args):
    url = f"{base}/database/1/{args.container}/development/public/records/query?ckAPIToken={args.api_token}"
    elapsed, _ = call(url, {"query": {"recordType": "Restaurant"}, "resultsLimit": 20}, args.timeout)
    note("ok", elapsed)


def worker(index, args, bases, out):
    i = 0
    while not os.path.exists(args.stop):
        i += 1
        base = bases[i % len(bases)]
        name = f"rs-t{index}-{i:05d}"
        photo = os.urandom(1024) + name.encode()
        try:
            query(base, args)
            if add(base, args, name, photo):
                with lock:
                    counts["acked"] += 1
                    out.write(f"{name} {hashlib.sha256(photo).hexdigest()}\n")
                    out.flush()
        except Retry:
            time.sleep(0.1)  # a short pause, not the advertised retryAfter: the test wants load


def write_status(path):
    with lock:
        text = json.dumps(counts)
    with open(path + ".tmp", "w") as status:
        status.write(text)
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--bases", "--container", "--api-token", "--user-token", "--status", "--stop", "--out"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()
    bases = args.bases.split(",")
    with open(args.out, "w") as out:
        threads = [threading.Thread(target=worker, args=(n, args, bases, out), daemon=True) for n in range(args.threads)]
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            write_status(args.status)
            time.sleep(0.1)  # status refresh interval
        write_status(args.status)
    print(" ".join(f"{key} {value:.1f}" if isinstance(value, float) else f"{key} {value}" for key, value in counts.items()))
    for example in bad_examples:
        print("bad:", example, file=sys.stderr)
    return 1 if counts["bad"] else 0


if __name__ == "__main__":
    sys.exit(main())
