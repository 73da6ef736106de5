#!/usr/bin/env python3
"""Seeds a served container for the console's browser tests, through CloudKit Web Services:
25 Thai restaurants (thai-01…thai-25), golden-dragon, a hostile record, and alice's private one.

Usage: console_seed.py BASE_URL CONTAINER API_TOKEN ALICE_WEB_AUTH_TOKEN
"""
import json
import sys
import urllib.request

base, container, token, alice = sys.argv[1:5]


def modify(database, records):
    body = {"operations": [{"operationType": "create", "record": r} for r in records]}
    url = f"{base}/database/1/{container}/development/{database}/records/modify?ckAPIToken={token}&ckWebAuthToken={alice}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        result = json.load(response)
    failed = [r for r in result["records"] if "serverErrorCode" in r]
    assert not failed, failed


def restaurant(name, title, kind, description=""):
    return {"recordName": name, "recordType": "Restaurant", "fields": {
        "name": {"value": title}, "type": {"value": kind}, "location": {"value": "Bangkok"},
        "description": {"value": description}}}


modify("public", [restaurant(f"thai-{i:02d}", f"Thai Place {i:02d}", "Thai") for i in range(1, 26)]
       + [restaurant("golden-dragon", "Golden Dragon", "Chinese"),
          restaurant("hostile", "<img src=x onerror=alert(1)>", "Hostile",
                     "Best noodles </script><script>alert(2)</script> & more")])
modify("private", [restaurant("alice-private", "Alice's private diner", "Secret")])
