#!/usr/bin/env python3
"""Plays a terminal to foodpin over a pty (tmux strips or rewrites OSC 8) and checks its links.

    links_pty.py FOODPIN DATA_DIR links|nolinks|noopener BIN_DIR OPENED_FILE

The data directory holds the 24 samples and, newest, "Evil Diner", whose location and phone
carry escape sequences. In the detail view:
  links:    the phone is an OSC 8 `tel:` link and the location an OpenStreetMap search, both
            percent-encoded (Montréal, Canada → Montr%C3%A9al%2C%20Canada); the hostile record's
            targets are printable ASCII with its ESC as %1B, and no raw escape from the record is
            written; `o` runs the xdg-open in BIN_DIR with the map URL (it writes OPENED_FILE).
  nolinks:  with --no-links, no OSC 8 sequence at all.
  noopener: no xdg-open or open on PATH: `o` shows the map URL on the screen.
Every wait polls with a deadline; nothing sleeps a fixed time.
"""
import fcntl, os, pty, re, select, signal, struct, sys, termios, time

FOODPIN, DATA, MODE, BIN_DIR, OPENED = sys.argv[1:6]
COLS, ROWS = 100, 30
TIMEOUT = float(os.environ.get("E2E_TIMEOUT", "30"))
CAFE_MAP = b"https://www.openstreetmap.org/search?query=Montr%C3%A9al%2C%20Canada"
OSC8 = re.compile(rb"\x1b\]8;;([^\x1b\x07]*)\x1b\\")

def fail(message, output=b""):
    tail = output[-1500:].decode("utf-8", "replace").encode("unicode_escape").decode()
    print(f"FAIL: {MODE}: {message}\n--- last output ---\n{tail}\n---", file=sys.stderr)
    sys.exit(1)

args = [FOODPIN, "--data-dir", DATA, "--images", "none"] + (["--no-links"] if MODE == "nolinks" else [])
path = BIN_DIR if MODE == "links" else BIN_DIR + "-empty"
pid, fd = pty.fork()
if pid == 0:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "STY", "NO_COLOR", "COLUMNS", "LINES", "TERM_PROGRAM")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8", LOCALCLOUD_USER="alice", PATH=path)
    os.execve(FOODPIN, args, env)

fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, COLS * 10, ROWS * 20))
os.kill(pid, signal.SIGWINCH)
output = bytearray()

def pump(seconds):
    ready, _, _ = select.select([fd], [], [], seconds)
    if not ready:
        return
    try:
        output.extend(os.read(fd, 65536))
    except OSError:
        pass

def wait_until(condition, message):
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        if condition():
            return
        pump(0.1)
    fail(message, bytes(output))

def since(mark):
    return bytes(output[mark:])

def settle():
    """Reads until foodpin has written nothing for half a second (the frame and what follows it)."""
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        before = len(output)
        pump(0.5)
        if len(output) == before:
            return

def links_in(mark):
    return [t for t in OSC8.findall(since(mark)) if t]

wait_until(lambda: b"restaurants" in output and b"Evil Diner" in output, "the list did not show")
# The hostile restaurant is the newest: open it.
mark = len(output)
os.write(fd, b"\r")
wait_until(lambda: b"Bistro" in since(mark) and b"Added" in since(mark), "the hostile detail view did not show")
if MODE != "nolinks":
    wait_until(lambda: len(links_in(mark)) >= 2, "no links in the hostile detail view")
settle()
hostile = since(mark)
targets = OSC8.findall(hostile)
if MODE == "nolinks":
    if b"\x1b]8;" in hostile:
        fail("--no-links wrote an OSC 8 sequence", hostile)
else:
    opened = [t for t in targets if t]
    if len(opened) != 2:
        fail(f"expected a phone and a location link, found {opened}", hostile)
    for target in opened:
        if not re.fullmatch(rb"[\x21-\x7e]+", target):
            fail(f"a link target is not printable ASCII: {target!r}", hostile)
    tel = [t for t in opened if t.startswith(b"tel:")]
    osm = [t for t in opened if t.startswith(b"https://www.openstreetmap.org/search?query=")]
    if tel != [b"tel:+1-514%1B%5B2J-555"]:
        fail(f"the phone link is {tel}", hostile)
    if osm != [b"https://www.openstreetmap.org/search?query=Rue%20%1B%5D8%3B%3Bhttp%3A%2F%2Fevil%1B%5CX%20%22%26%22%20%E6%9D%B1%E4%BA%AC"]:
        fail(f"the map link is {osm}", hostile)
    if b"\x1b]8;;http://evil" in hostile or b"\x1b[2J" in hostile:
        fail("the record's escape sequences reached the terminal", hostile)
    print(f"ok - {MODE}: the hostile record's links are percent-encoded ({tel[0].decode()}) and its text stays data")

# Back to the list, down to Café Déjà Vu (the first sample), and open it.
os.write(fd, b"\x1b")
wait_until(lambda: b"Trattoria" in since(mark + len(hostile)), "Esc did not go back")
mark = len(output)
os.write(fd, b"j")
pump(0.2)
os.write(fd, b"\r")
wait_until(lambda: b"French Caf" in since(mark), "the café's detail view did not show")
if MODE != "nolinks":
    wait_until(lambda: len(links_in(mark)) >= 2, "no links in the café's detail view")
settle()
cafe = since(mark)
if MODE == "nolinks":
    if b"\x1b]8;" in cafe:
        fail("--no-links wrote an OSC 8 sequence", cafe)
    print("ok - nolinks: --no-links writes no OSC 8 sequence; the detail view is plain text")
else:
    link = re.search(rb"\x1b\]8;;" + re.escape(CAFE_MAP) + rb"\x1b\\(.*?)\x1b\]8;;\x1b\\", cafe, re.S)
    if not link:
        fail("no OpenStreetMap link for Montréal, Canada", cafe)
    text = re.sub(rb"\x1b\[[0-9;]*m", b"", link.group(1))
    if text != "Montréal, Canada".encode():
        fail(f"the link's text is {text!r}", cafe)
    if not re.search(rb"\x1b\]8;;tel:\+1-514-555-0142\x1b\\", cafe):
        fail("no tel: link for the café's phone", cafe)
    print(f"ok - {MODE}: Montréal, Canada is an OSC 8 link to {CAFE_MAP.decode()}, the phone a tel: link")

if MODE == "links":
    os.write(fd, b"o")
    def opened():
        try:
            with open(OPENED, "rb") as f:
                return f.read().strip() == CAFE_MAP
        except FileNotFoundError:
            return False
    wait_until(opened, "o did not run xdg-open with the map URL")
    wait_until(lambda: b"Opening the map" in output, "o did not say it opens the map")
    print("ok - links: o runs xdg-open with the map URL")
elif MODE == "noopener":
    mark = len(output)
    os.write(fd, b"o")
    wait_until(lambda: b"Map: " + CAFE_MAP in since(mark), "o did not show the map URL without an opener")
    print("ok - noopener: without xdg-open or open, o shows the map URL")

os.write(fd, b"\x1bq")
deadline = time.time() + TIMEOUT
while time.time() < deadline:
    pump(0.1)
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
else:
    os.kill(pid, signal.SIGKILL)
    fail("foodpin did not exit", bytes(output))
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    fail(f"foodpin exited with status {status}", bytes(output))
