#!/usr/bin/env python3
"""The web console in a real browser: Debian's chromium, headless, driven by Playwright.

Run by console_web.sh (SQLite) and console_web_postgres.sh (two PostgreSQL nodes behind nginx),
which start the servers and seed the data; this file only talks HTTP to them.

Environment: CONSOLE_URL (where the browser goes), API_URL (where API calls go; default the
same), TOKEN (an API token), ALICE / BOB (web auth tokens), ADMIN / ADMIN_PASSWORD,
CONTAINER, SCREENSHOTS (a directory for one PNG per section, optional), OTHER_URL (a second
node: changes made on CONSOLE_URL must show there, optional), CHROMIUM (default /usr/bin/chromium).
"""
import base64
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from playwright.sync_api import expect, sync_playwright

URL = os.environ["CONSOLE_URL"].rstrip("/")
API = os.environ.get("API_URL", URL).rstrip("/")
TOKEN = os.environ["TOKEN"]
ALICE = os.environ["ALICE"]
ADMIN = os.environ.get("ADMIN", "root")
PASSWORD = os.environ["ADMIN_PASSWORD"]
C = os.environ.get("CONTAINER", "iCloud.FoodPin")
SHOTS = os.environ.get("SCREENSHOTS")
OTHER = os.environ.get("OTHER_URL", "").rstrip("/")
HOSTILE_NAME = "<img src=x onerror=alert(1)>"
HOSTILE_DESCRIPTION = "Best noodles </script><script>alert(2)</script> & more"

passed = 0


def ok(message):
    global passed
    passed += 1
    print(f"ok - {message}", flush=True)


def api(endpoint, body, token=TOKEN, user=None, database="public", environment="development"):
    """A CloudKit Web Services call; returns (status, json)."""
    url = f"{API}/database/1/{C}/{environment}/{database}/{endpoint}?ckAPIToken={token}"
    if user:
        url += f"&ckWebAuthToken={user}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def lookup(name):
    status, body = api("records/lookup", {"records": [{"recordName": name}]})
    assert status == 200, body
    return body["records"][0]


def console_query(**params):
    base = {"c": C, "env": "development"}
    base.update(params)
    return "&".join(f"{k}={urllib.request.quote(str(v), safe='')}" for k, v in base.items())


def shot(page, name):
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def main():
    dialogs = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        csp_violations = []
        page.on("console", lambda message: csp_violations.append(message.text)
                if "Content Security Policy" in message.text else None)
        external = []
        page.on("request", lambda request: external.append(request.url)
                if not request.url.startswith(URL) and not request.url.startswith("data:") else None)
        page.set_default_timeout(15000)

        # --- Signed out: every page sends the browser to the sign-in page.
        page.goto(f"{URL}/console/records?{console_query()}")
        assert page.url.startswith(f"{URL}/console/signin"), page.url
        response = page.request.get(f"{URL}/console/logs.json")
        assert response.status == 421, response.status
        shot(page, "signin")
        ok("signed out: /console/records redirects to the sign-in page; logs.json is refused")

        # --- A wrong password.
        page.fill("#user", ADMIN)
        page.fill("#password", "not-the-password")
        with page.expect_response(lambda r: r.url.endswith("/console/signin") and r.request.method == "POST") as info:
            page.click("#signin")
        assert info.value.status == 401, info.value.status
        expect(page.locator("#error")).to_contain_text("Wrong name or password")
        ok("a wrong password: 401 and the sign-in page says so")

        # --- Login CSRF: a sign-in posted without the form's token (as another site's form would) is refused.
        response = page.request.post(f"{URL}/console/signin", form={"user": ADMIN, "password": PASSWORD})
        assert response.status == 403 and "CSRF" in response.text(), response.status
        assert not any(c["name"] == "localcloud_console" for c in context.cookies()), context.cookies()
        ok("login CSRF: a sign-in POST without the form's CSRF token is refused (403), even with the right password")

        # --- Sign in, and come back to the page asked for.
        page.fill("#password", PASSWORD)
        page.click("#signin")
        page.wait_for_url(re.compile(r".*/console/records.*"))
        cookie = next(c for c in context.cookies() if c["name"] == "localcloud_console")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict", cookie
        assert cookie["secure"] == URL.startswith("https"), cookie
        headers = page.request.get(f"{URL}/console/overview?{console_query()}").headers
        csp = headers["content-security-policy"]
        assert "default-src 'self'" in csp and "unsafe-inline" not in csp, csp
        ok("signed in: back on the records page; the cookie is HttpOnly and SameSite=Strict; CSP default-src 'self' without unsafe-inline")

        # --- Every section renders.
        for section, title in [("overview", "Overview"), ("schema", "Schema"), ("records", "Records"),
                               ("zones", "Zones & subscriptions"), ("people", "Tokens & users"), ("logs", "Logs"),
                               ("telemetry", "Telemetry"), ("audit", "Audit log")]:
            page.goto(f"{URL}/console/{section}?{console_query()}")
            expect(page.locator("#section-title")).to_contain_text(title.split(" ")[0])
            expect(page.locator("nav a.current")).to_have_text(title)
            shot(page, section)
        for chart in ["requests", "latency", "errors", "streams"]:
            page.goto(f"{URL}/console/telemetry?{console_query()}")
            width = page.eval_on_selector(f"#chart-{chart}", "img => img.complete && img.naturalWidth")
            assert width == 640, f"chart {chart} did not load ({width})"
        ok("each section renders (overview, schema, records, zones, tokens & users, logs, telemetry, audit) and the SVG charts load")

        # --- Schema: a field and a sortable index, then the API sorts on it.
        status, body = api("records/query", {"query": {"recordType": "Restaurant",
                                                       "sortBy": [{"fieldName": "rating", "ascending": False}]}})
        assert status == 400, (status, body)
        page.goto(f"{URL}/console/schema?{console_query()}")
        page.select_option("#add-field select[name=type]", "Restaurant")
        page.fill("#add-field input[name=field]", "9bad")
        page.click("#add-field button")
        expect(page.locator("#error")).to_contain_text("is invalid")
        page.fill("#add-field input[name=field]", "rating")
        page.select_option("#add-field select[name=fieldType]", "INT64")
        page.click("#add-field button")
        expect(page.locator("#notice")).to_contain_text("Added field Restaurant.rating")
        page.select_option("#add-index select[name=type]", "Restaurant")
        page.fill("#add-index input[name=field]", "rating")
        page.select_option("#add-index select[name=kind]", "sortable")
        page.click("#add-index button")
        expect(page.locator("#notice")).to_contain_text("Added SORTABLE index on Restaurant.rating")
        expect(page.locator("#type-Restaurant tr[data-field=rating]")).to_contain_text("yes")
        for name, rating in [("thai-03", 3), ("thai-07", 9), ("thai-11", 5)]:
            status, body = api("records/modify", {"operations": [{"operationType": "forceUpdate", "record": {
                "recordName": name, "recordType": "Restaurant", "fields": {"rating": {"value": rating}}}}]}, user=ALICE)
            assert status == 200 and "serverErrorCode" not in body["records"][0], body
        status, body = api("records/query", {"query": {"recordType": "Restaurant",
                                                       "sortBy": [{"fieldName": "rating", "ascending": False}]},
                                             "resultsLimit": 3})
        assert status == 200, body
        assert [r["recordName"] for r in body["records"]] == ["thai-07", "thai-11", "thai-03"], body
        ok("schema: an invalid field name is refused in place; rating INT64 + SORTABLE added; the API then sorts on it")

        # --- Schema: a type and a grant; the .ckdb text exported, then imported with one more type.
        page.fill("#add-type input[name=type]", "Menu")
        page.click("#add-type button")
        expect(page.locator("#notice")).to_contain_text("Menu")
        page.select_option("#add-grant select[name=type]", "Menu")
        page.fill("#add-grant input[name=role]", "_world")
        page.check("#add-grant input[name=read]")
        page.click("#add-grant button")
        expect(page.locator("#notice")).to_contain_text("Granted")
        expect(page.locator("#type-Menu .grants")).to_contain_text("_world")
        exported = page.request.get(URL + page.locator("#export-link").get_attribute("href"))
        assert exported.status == 200, exported.status
        text = exported.text()
        assert "RECORD TYPE Menu" in text and "RECORD TYPE Restaurant" in text, text[:300]
        page.fill("#import textarea[name=ckdb]", "DEFINE SCHEMA RECORD TYPE (")
        page.click("#import button")
        expect(page.locator("#error")).to_be_visible()
        page.fill("#import textarea[name=ckdb]", text.rstrip() + "\n\n    RECORD TYPE Imported (\n        \"___recordID\" REFERENCE QUERYABLE,\n        title STRING QUERYABLE,\n"
                  "        GRANT READ TO \"_world\"\n    );\n")
        page.click("#import button")
        expect(page.locator("#notice")).to_contain_text("Imported")
        expect(page.locator("#type-Imported")).to_have_count(1)
        expect(page.locator("#type-Restaurant tr[data-field=rating]")).to_contain_text("yes")
        status, body = api("records/query", {"query": {"recordType": "Imported"}})
        assert status == 200, (status, body)
        ok("schema: a type and a READ grant added; exported as .ckdb; a broken import refused in place, the export plus a type imported")

        # --- Records: a filter and paging by continuation marker.
        page.goto(f"{URL}/console/records?{console_query(type='Restaurant', field='type', cmp='EQUALS', value='Thai', sort='name', limit=10)}")
        seen = []
        for expected in [10, 10, 5]:
            rows = page.locator("#results tbody tr")
            expect(rows).to_have_count(expected)
            seen += [rows.nth(i).locator("a.record-link").inner_text() for i in range(expected)]
            if expected == 10:
                page.click("#next-page")
        expect(page.locator("#next-page")).to_have_count(0)
        assert seen == sorted(seen) and len(set(seen)) == 25 and all(s.startswith("thai-") for s in seen), seen
        page.goto(f"{URL}/console/records?{console_query(type='Restaurant', field='rating', cmp='GREATER_THAN', value='abc')}")
        expect(page.locator("#error")).to_contain_text("whole number")
        ok("records: type EQUALS Thai, sorted by name, 10 per page: 10 + 10 + 5 by continuation marker; a bad value is an error in place")

        # --- Edit a record, then a conflict when the API changed it meanwhile.
        page.goto(f"{URL}/console/record?{console_query(name='golden-dragon')}")
        page.fill("#record-fields input[name='f.name']", "Golden Dragon II")
        page.click("#save")
        expect(page.locator("#notice")).to_contain_text("Saved golden-dragon")
        assert lookup("golden-dragon")["fields"]["name"]["value"] == "Golden Dragon II"
        record = lookup("golden-dragon")
        page.goto(f"{URL}/console/record?{console_query(name='golden-dragon')}")
        status, body = api("records/modify", {"operations": [{"operationType": "update", "record": {
            "recordName": "golden-dragon", "recordType": "Restaurant", "recordChangeTag": record["recordChangeTag"],
            "fields": {"name": {"value": "Changed by the API"}}}}]}, user=ALICE)
        assert status == 200 and "serverErrorCode" not in body["records"][0], body
        page.fill("#record-fields input[name='f.name']", "Changed in the console")
        page.click("#save")
        expect(page.locator("#section-title")).to_contain_text("Conflict")
        expect(page.locator("#conflicts tr[data-field=name] .theirs")).to_have_text("Changed by the API")
        expect(page.locator("#conflicts tr[data-field=name] .mine")).to_have_text("Changed in the console")
        assert lookup("golden-dragon")["fields"]["name"]["value"] == "Changed by the API"
        shot(page, "conflict")
        page.click("#overwrite")
        expect(page.locator("#notice")).to_contain_text("Saved golden-dragon")
        assert lookup("golden-dragon")["fields"]["name"]["value"] == "Changed in the console"
        ok("edit: saved through the console; a change by the API meanwhile is a conflict showing both, nothing overwritten until chosen")

        # --- An image asset is previewed on the record's page (an image from this origin).
        if os.environ.get("PHOTO_RECORD"):
            page.goto(f"{URL}/console/record?{console_query(name=os.environ['PHOTO_RECORD'])}")
            preview = page.locator("img.preview")
            expect(preview).to_have_count(1)
            page.wait_for_function("() => { const i = document.querySelector('img.preview'); return i.complete && i.naturalWidth > 0 }")
            shot(page, "record")
            ok("the record page previews its image asset")

        # --- Location, bytes and asset fields are edited too: latitude/longitude, base64, a file upload.
        page.goto(f"{URL}/console/schema?{console_query()}")
        for field, kind in [("coords", "LOCATION"), ("blob", "BYTES")]:
            page.select_option("#add-field select[name=type]", "Restaurant")
            page.fill("#add-field input[name=field]", field)
            page.select_option("#add-field select[name=fieldType]", kind)
            page.click("#add-field button")
            expect(page.locator("#notice")).to_contain_text(f"Added field Restaurant.{field}")
        photo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Assets", "Restaurants", "athena.jpg")
        with open(photo, "rb") as handle:
            photo_bytes = handle.read()
        blob = base64.b64encode(b"\x00console bytes\xff").decode()
        page.goto(f"{URL}/console/record?{console_query(name='thai-01')}")
        page.fill("#record-fields input[name='lat.coords']", "13.7563")
        page.fill("#record-fields input[name='lon.coords']", "100.5018")
        page.fill("#record-fields textarea[name='f.blob']", blob)
        page.set_input_files("#record-fields input[name='file.image']", photo)
        page.click("#save")
        expect(page.locator("#notice")).to_contain_text("Saved thai-01")
        fields = lookup("thai-01")["fields"]
        assert fields["coords"]["value"]["latitude"] == 13.7563 and fields["coords"]["value"]["longitude"] == 100.5018, fields
        assert fields["blob"]["value"] == blob, fields["blob"]
        assert fields["image"]["value"]["size"] == len(photo_bytes), fields["image"]
        with urllib.request.urlopen(fields["image"]["value"]["downloadURL"], timeout=30) as response:
            assert response.read() == photo_bytes
        page.wait_for_function("() => { const i = document.querySelector('img.preview'); return i && i.complete && i.naturalWidth > 0 }")
        assert page.input_value("#record-fields textarea[name='f.blob']") == blob
        assert page.input_value("#record-fields input[name='lat.coords']") == "13.7563"
        page.fill("#record-fields input[name='lat.coords']", "123")
        page.click("#save")
        expect(page.locator("#message.failed")).to_contain_text("latitude")
        page.goto(f"{URL}/console/record?{console_query(name='thai-01')}")
        page.fill("#record-fields textarea[name='f.blob']", "not base64!")
        page.click("#save")
        expect(page.locator("#message.failed")).to_contain_text("base64")
        assert lookup("thai-01")["fields"]["coords"]["value"]["latitude"] == 13.7563
        ok("a location (latitude, longitude), bytes (base64) and an asset (a file upload) edited in the console; the API reads them back; a latitude of 123 and bad base64 are refused")

        # --- Create and delete.
        page.goto(f"{URL}/console/record/new?{console_query(type='Restaurant')}")
        page.fill("#new-name", "console-made")
        page.fill("#record-fields input[name='f.name']", "Made in the console")
        page.fill("#record-fields input[name='f.type']", "Test")
        page.click("#save")
        expect(page.locator("#record-name")).to_have_text("console-made")
        assert lookup("console-made")["fields"]["type"]["value"] == "Test"
        page.check("#delete-form input[name=confirm]")
        page.click("#delete")
        expect(page.locator("#notice")).to_contain_text("Deleted console-made")
        assert lookup("console-made").get("serverErrorCode") == "NOT_FOUND"
        ok("create and delete a record through the console")

        # --- Act as alice, then as bob.
        page.goto(f"{URL}/console/records?{console_query(db='private', type='Restaurant', **{'as': 'alice'})}")
        expect(page.locator("#acting-banner")).to_contain_text("Acting as alice")
        expect(page.locator("#results")).to_contain_text("alice-private")
        shot(page, "act-as")
        page.goto(f"{URL}/console/records?{console_query(db='private', type='Restaurant', **{'as': 'bob'})}")
        expect(page.locator("#acting-banner")).to_contain_text("Acting as bob")
        expect(page.locator("#no-results")).to_be_visible()
        expect(page.locator("body")).not_to_contain_text("alice-private")
        page.goto(f"{URL}/console/records?{console_query(db='private', type='Restaurant')}")
        expect(page.locator("#error")).to_contain_text("choose a user to act as")
        ok("acting as alice shows her private records with a banner; as bob they are not there; no user, no private database")

        # --- Zones and subscriptions, as alice in her private database: create and delete a zone,
        # delete a subscription she made through the API; the API then agrees.
        status, body = api("subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
            "subscriptionID": "console-thai", "subscriptionType": "query", "firesOn": ["create"],
            "query": {"recordType": "Restaurant"}}}]}, user=ALICE, database="private")
        assert status == 200 and "serverErrorCode" not in body["subscriptions"][0], body
        page.goto(f"{URL}/console/zones?{console_query(db='private', **{'as': 'alice'})}")
        expect(page.locator("#acting-banner")).to_contain_text("Acting as alice")
        page.fill("#zone-name", "ConsoleZone")
        page.click("#create-zone button")
        expect(page.locator("#notice")).to_contain_text("Created zone ConsoleZone")
        expect(page.locator("#zones tr[data-zone=ConsoleZone]")).to_have_count(1)
        status, body = api("zones/list", {}, user=ALICE, database="private")
        assert "ConsoleZone" in [z["zoneID"]["zoneName"] for z in body["zones"]], body
        page.fill("#zone-name", "bad name!")
        page.click("#create-zone button")
        expect(page.locator("#message.failed")).to_contain_text("Zone name")
        page.goto(f"{URL}/console/zones?{console_query(db='private', **{'as': 'alice'})}")
        expect(page.locator("#subscriptions tr[data-subscription=console-thai]")).to_contain_text("Restaurant")
        shot(page, "zones")
        row = page.locator("#zones tr[data-zone=ConsoleZone]")
        row.locator("input[name=confirm]").check()
        row.locator("button").click()
        expect(page.locator("#notice")).to_contain_text("Deleted zone ConsoleZone")
        expect(page.locator("#zones tr[data-zone=ConsoleZone]")).to_have_count(0)
        status, body = api("zones/list", {}, user=ALICE, database="private")
        assert "ConsoleZone" not in [z["zoneID"]["zoneName"] for z in body["zones"]], body
        page.locator("#subscriptions tr[data-subscription=console-thai] button").click()
        expect(page.locator("#notice")).to_contain_text("Deleted subscription console-thai")
        status, body = api("subscriptions/list", {}, user=ALICE, database="private")
        assert status == 200 and all(s["subscriptionID"] != "console-thai" for s in body["subscriptions"]), body
        response = page.request.post(f"{URL}/console/zones/create", form={"c": C, "env": "development", "db": "private",
                                                                          "as": "alice", "zoneName": "Sneaky"})
        assert response.status == 403, response.status
        ok("zones & subscriptions as alice: a zone created and deleted (a bad name refused), her subscription deleted; the API agrees; no CSRF token, no change")

        # --- Tokens: create (shown once), use, revoke, refused.
        page.goto(f"{URL}/console/people?{console_query()}")
        page.fill("#token-name", "browser-made")
        page.click("#create-token-button")
        secret = page.locator("#secret").inner_text().strip()
        assert re.fullmatch(r"[0-9a-f]{64}", secret), secret
        status, _ = api("records/query", {"query": {"recordType": "Restaurant"}, "resultsLimit": 1}, token=secret)
        assert status == 200, status
        page.goto(f"{URL}/console/people?{console_query()}")
        expect(page.locator("body")).not_to_contain_text(secret)
        row = page.locator("#tokens tbody tr", has_text="browser-made")
        row.locator("button.revoke").click()
        expect(page.locator("#notice")).to_contain_text("Revoked API token")
        status, body = api("records/query", {"query": {"recordType": "Restaurant"}, "resultsLimit": 1}, token=secret)
        assert status == 401 and body["serverErrorCode"] == "AUTHENTICATION_FAILED", (status, body)
        ok("an API token created in the console works, is shown once, and is refused once revoked")

        # --- A server-to-server key pair: the private key is shown once; revoked, it is marked so.
        page.fill("#create-key input[name=name]", "browser-key")
        page.click("#create-key button")
        private_key = page.locator("#secret").inner_text()
        assert "BEGIN PRIVATE KEY" in private_key, private_key[:80]
        page.goto(f"{URL}/console/people?{console_query()}")
        expect(page.locator("body")).not_to_contain_text("BEGIN PRIVATE KEY")
        key_row = page.locator("#keys tbody tr", has_text="browser-key")
        key_row.locator("button").click()
        expect(page.locator("#notice")).to_contain_text("Revoked key")
        expect(page.locator("#keys tbody tr", has_text="browser-key").locator("button")).to_have_count(0)
        ok("a server-to-server key pair: the private key is shown once; the key is revoked from the console")

        # --- Users: reset a password, disable (signs out, refuses sign-in), enable.
        def signin(user, password):
            request = urllib.request.Request(f"{API}/auth/1/{C}/signin", method="POST",
                                             data=json.dumps({"user": user, "password": password}).encode(),
                                             headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return response.status
            except urllib.error.HTTPError as error:
                return error.code
        bob = os.environ["BOB"]
        assert api("records/query", {"query": {"recordType": "Restaurant"}, "resultsLimit": 1}, user=bob)[0] == 200
        page.goto(f"{URL}/console/people?{console_query()}")
        row = page.locator("#users tr[data-user=bob]")
        row.locator(".reset-password input[name=password]").fill("bob-new-secret")
        row.locator(".reset-password button").click()
        expect(page.locator("#notice")).to_contain_text("New password for bob")
        assert signin("bob", "bob-secret") == 401 and signin("bob", "bob-new-secret") == 200
        assert api("records/query", {"query": {"recordType": "Restaurant"}, "resultsLimit": 1}, user=bob)[0] == 401
        page.locator("#users tr[data-user=bob] .disable-user button").click()
        expect(page.locator("#users tr[data-user=bob] .status")).to_have_text("disabled")
        assert signin("bob", "bob-new-secret") == 401
        page.locator("#users tr[data-user=bob] .disable-user button").click()
        expect(page.locator("#users tr[data-user=bob] .status")).to_have_text("active")
        assert signin("bob", "bob-new-secret") == 200
        ok("users: a reset password replaces the old one and signs bob out; disabled, bob cannot sign in; enabled again, he can")

        # --- The live log: a curl request shows within 2 s; tokens never.
        page.goto(f"{URL}/console/logs?{console_query()}")
        expect(page.locator("#live-status")).to_have_text("Live")
        marker = f"live-{int(time.time() * 1000)}"
        started = time.monotonic()
        subprocess.run(["curl", "-s", "-o", "/dev/null", "-X", "POST", "--data", "{}",
                        f"{API}/database/1/{C}/development/public/{marker}?ckAPIToken={TOKEN}&ckWebAuthToken={ALICE}"],
                       check=True)
        expect(page.locator("#log-lines tr", has_text=marker)).to_have_count(1, timeout=2000)
        elapsed = time.monotonic() - started
        text = page.locator("#log").inner_text()
        assert TOKEN not in text and ALICE not in text
        if OTHER:
            # The cluster shares its log: a request served by the other node shows here, named by its node.
            expect(page.locator("#log-scope")).to_contain_text("Every node")
            other_marker = f"other-node-{int(time.time() * 1000)}"
            started = time.monotonic()
            subprocess.run(["curl", "-s", "-o", "/dev/null", "-X", "POST", "--data", "{}",
                            f"{OTHER}/database/1/{C}/development/public/{other_marker}?ckAPIToken={TOKEN}&ckWebAuthToken={ALICE}"],
                           check=True)
            other_row = page.locator("#log-lines tr", has_text=other_marker)
            expect(other_row).to_have_count(1, timeout=2000)
            other_elapsed = time.monotonic() - started
            this_node = page.locator("#log-lines tr", has_text=marker).locator("td.node").inner_text()
            other_node = other_row.locator("td.node").inner_text()
            assert this_node and other_node and this_node != other_node, (this_node, other_node)
            assert TOKEN not in page.locator("#log").inner_text()
            ok(f"the cluster's log: a request through the other node ({other_node}) showed in this node's ({this_node}) live log in {other_elapsed:.2f} s")
            page.goto(f"{URL}/console/telemetry?{console_query()}")
            expect(page.locator("main")).to_contain_text("Every node of the cluster")
            page.goto(f"{URL}/console/logs?{console_query()}")
            expect(page.locator("#log-lines tr", has_text=other_marker)).to_have_count(1)
        if SHOTS:
            page.screenshot(path=os.path.join(SHOTS, "logs.png"))
        page.goto(f"{URL}/console/logs?{console_query(status='404')}")
        statuses = page.locator("#log-lines tr td:nth-child(4)").all_inner_texts()
        assert statuses and set(statuses) == {"404"}, statuses
        ok(f"the live log showed a curl request in {elapsed:.2f} s (limit 2 s), without its tokens; the status filter works")

        # --- Deploy: the diff, a confirmation, then production has the field (and is read-only).
        page.goto(f"{URL}/console/deploy?{console_query()}")
        expect(page.locator("#diff .added", has_text="rating")).to_have_count(1)
        shot(page, "deploy")
        page.check("#deploy-confirm")
        page.click("#deploy")
        expect(page.locator("#notice")).to_contain_text("Deployed to production")
        expect(page.locator("#in-sync")).to_be_visible()
        page.goto(f"{URL}/console/schema?c={C}&env=production")
        expect(page.locator("#readonly")).to_be_visible()
        expect(page.locator("#type-Restaurant tr[data-field=rating]")).to_contain_text("INT64")
        expect(page.locator("#add-field")).to_have_count(0)
        status, body = api("records/query", {"query": {"recordType": "Restaurant",
                                                       "sortBy": [{"fieldName": "rating", "ascending": False}]}},
                           environment="production")
        assert status in (200, 401), (status, body)  # the token is development's: production needs its own
        ok("deploy: the diff shows the new field; confirmed, production has it and its schema page is read-only")

        # --- Hostile record text is shown as written and never runs.
        page.goto(f"{URL}/console/records?{console_query(type='Restaurant', field='type', cmp='EQUALS', value='Hostile')}")
        expect(page.locator("#results a.record-link")).to_have_text("hostile")
        expect(page.locator("#results tbody td").nth(1)).to_have_text(HOSTILE_NAME)
        page.goto(f"{URL}/console/record?{console_query(name='hostile')}")
        assert page.input_value("#record-fields input[name='f.name']") == HOSTILE_NAME
        assert page.input_value("#record-fields input[name='f.description']") == HOSTILE_DESCRIPTION
        assert page.locator("img[src=x]").count() == 0
        page.goto(f"{URL}/console/overview?{console_query()}")
        assert dialogs == [], dialogs
        ok("a record named <img src=x onerror=alert(1)> with </script> in its description: shown as written, no dialog")

        # --- A change without the CSRF token is refused.
        response = page.request.post(f"{URL}/console/schema/type", form={"c": C, "env": "development", "type": "Sneaky"})
        assert response.status == 403 and "CSRF" in response.text(), response.status
        response = page.request.post(f"{URL}/console/schema/type",
                                     form={"c": C, "env": "development", "type": "Sneaky", "csrf": "0" * 64})
        assert response.status == 403
        page.goto(f"{URL}/console/schema?{console_query()}")
        expect(page.locator("#type-Sneaky")).to_have_count(0)
        ok("a change posted without (or with a wrong) CSRF token is refused with 403 and changes nothing")

        # --- The audit log shows who did what.
        page.goto(f"{URL}/console/audit?{console_query()}")
        for action in ["schema.field", "schema.index", "records.update", "tokens.create", "tokens.revoke", "schema.deploy",
                       "zones.create", "zones.delete", "subscriptions.delete"]:
            expect(page.locator("#audit tbody", has_text=action)).to_have_count(1)
        expect(page.locator("#audit tbody tr").first).to_contain_text(ADMIN)
        shot(page, "audit")
        ok("the audit log lists each change with the administrator and the time")

        # --- Another node sees this node's changes and sessions.
        if OTHER:
            other = browser.new_context()
            other.add_cookies([{**cookie, "domain": urllib.parse.urlparse(OTHER).hostname}])
            other_page = other.new_page()
            other_page.goto(f"{OTHER}/console/schema?{console_query()}")
            expect(other_page.locator("#type-Restaurant tr[data-field=rating]")).to_contain_text("yes")
            other_page.goto(f"{OTHER}/console/record?{console_query(name='golden-dragon')}")
            assert other_page.input_value("#record-fields input[name='f.name']") == "Changed in the console"
            ok("the other node shows the field, the index and the edit made through this one, for the same session")

        # --- Sign out ends the session (on every node).
        page.click("#signout")
        page.wait_for_url(re.compile(r".*/console/signin.*"))
        stale = browser.new_context()
        stale.add_cookies([cookie])
        stale_page = stale.new_page()
        stale_page.goto(f"{URL}/console/overview")
        assert "/console/signin" in stale_page.url, stale_page.url
        if OTHER:
            other_page.goto(f"{OTHER}/console/overview")
            assert "/console/signin" in other_page.url, other_page.url
        ok("signing out ends the session: its cookie is refused afterwards" + (" on both nodes" if OTHER else ""))

        assert not external, f"requests to other hosts: {external[:5]}"
        assert not csp_violations, csp_violations[:5]
        ok("no request left the console's origin and no Content-Security-Policy violation was reported")
        browser.close()
    print(f"console_web.py: {passed} passed")


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # one line for the log, then the traceback
        print(f"FAIL: {error!r}", file=sys.stderr)
        raise
