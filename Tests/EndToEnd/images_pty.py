#!/usr/bin/env python3
"""Plays a graphics-capable terminal to foodpin over a pty (tmux cannot show pixels).

    images_pty.py FOODPIN DATA_DIR kitty|sixel|silent

The pty is 100x30 cells of 10x20 pixels (TIOCSWINSZ). The "terminal" answers foodpin's start-up
queries as the chosen terminal would:
  kitty:  the kitty graphics query with OK, and DA1 without sixel;
  sixel:  DA1 with attribute 4 (sixel), and nothing to the kitty query;
  silent: nothing at all (foodpin must fall back to symbols after its short timeout).
Then it checks what foodpin draws: kitty graphics commands or sixel images for the visible
thumbnails, placed at their rows' cells and sized to the cell box, removed when the list
scrolls and the view changes, and cleared on quit; or symbol cells and no graphics at all.
Every wait polls with a deadline; nothing sleeps a fixed time.
"""
import fcntl, os, pty, re, select, signal, struct, sys, termios, time

FOODPIN, DATA, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
COLS, ROWS, CELL_W, CELL_H = 100, 30, 10, 20
TIMEOUT = float(os.environ.get("E2E_TIMEOUT", "30"))

def fail(message, output=b""):
    tail = output[-600:].decode("utf-8", "replace").encode("unicode_escape").decode()
    print(f"FAIL: {MODE}: {message}\n--- last output ---\n{tail}\n---", file=sys.stderr)
    sys.exit(1)

pid, fd = pty.fork()
if pid == 0:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "STY", "NO_COLOR", "COLUMNS", "LINES", "TERM_PROGRAM", "KITTY_WINDOW_ID")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8", LOCALCLOUD_USER="alice")
    os.execve(FOODPIN, [FOODPIN, "--data-dir", DATA], env)

fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, COLS * CELL_W, ROWS * CELL_H))
os.kill(pid, signal.SIGWINCH)
output = bytearray()
answered = set()

def pump(seconds):
    """Reads what foodpin wrote for up to `seconds`, answering its queries."""
    ready, _, _ = select.select([fd], [], [], seconds)
    if not ready:
        return
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        return
    output.extend(chunk)
    if b"\x1b_Gi=31," in output and "kitty" not in answered:
        answered.add("kitty")
        if MODE == "kitty":
            os.write(fd, b"\x1b_Gi=31;OK\x1b\\")
    if b"\x1b[c" in output and "da1" not in answered:
        answered.add("da1")
        if MODE == "kitty":
            os.write(fd, b"\x1b[?62;22c")
        elif MODE == "sixel":
            os.write(fd, b"\x1b[?62;4;22c")

def wait_until(condition, message):
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        if condition():
            return
        pump(0.1)
    fail(message, bytes(output))

def send(keys):
    os.write(fd, keys)

# A kitty photo transmitted and shown at a cell (with an ID to place it again, replies off) ...
KITTY = re.compile(rb"\x1b7\x1b\[(\d+);(\d+)H\x1b_Ga=T,i=\d+,q=2,f=\d+,s=(\d+),v=(\d+),c=(\d+),r=(\d+)")
# ... and placed again by its ID.
KITTY_AGAIN = re.compile(rb"\x1b7\x1b\[(\d+);(\d+)H\x1b_Ga=p,i=(\d+),q=2\x1b\\")
SIXEL = re.compile(rb"\x1b7\x1b\[(\d+);(\d+)H\x1bP[0-9;]*q\"1;1;(\d+);(\d+)")
DELETE_ALL = b"\x1b_Ga=d,d=A,q=2\x1b\\"
DELETE_PLACEMENTS = b"\x1b_Ga=d,d=a,q=2\x1b\\"
# A 100x30 screen shows 9 rows of 3 lines; each row's thumbnail box is 6x3 cells at column 2.
ROW_TOPS = [3 + 3 * i for i in range(9)]

def placements(pattern, start=0):
    return [tuple(int(g) for g in m.groups()) for m in pattern.finditer(bytes(output), start)]

def row_photos(found):
    """Placements of list thumbnails: in the 6x3 box of a row, sized to their cells' pixels
    (a sixel image's height is a multiple of 6 pixels, so up to 5 pixels short)."""
    good = []
    for (y, x, width, height, *cells) in found:
        columns, rows = cells if cells else (width // CELL_W, -(-height // CELL_H))
        exact_height = height == rows * CELL_H if cells else rows * CELL_H - 6 < height <= rows * CELL_H
        if x == 3 and any(top <= y < top + 3 for top in ROW_TOPS) and columns <= 6 and rows <= 3 \
                and width == columns * CELL_W and exact_height and y + rows <= ROW_TOPS[-1] + 3:
            good.append((y, columns, rows))
    return good

wait_until(lambda: b"24 restaurants" in output, "the list did not load")

if MODE == "kitty":
    wait_until(lambda: len({p[0] for p in row_photos(placements(KITTY))}) >= 9,
               "no kitty graphics command for each of the 9 visible thumbnails (6x3 cells, 10x20 px each)")
    photos = row_photos(placements(KITTY))
    assert all(c == 6 and r == 2 for _, c, r in photos), photos  # 640x480 photos in a 6x3 box: 6x2 cells
    print(f"ok - kitty: {len(photos)} thumbnails as kitty graphics (c=6,r=2, s=60,v=40) at their rows' cells")
    mark = len(output)
    send(b"G")  # jump to the end: the list scrolls
    wait_until(lambda: DELETE_PLACEMENTS in output[mark:] and len(row_photos(placements(KITTY, mark))) >= 9,
               "scrolling did not delete the old placements and show the new rows' photos")
    print("ok - kitty: scrolling deletes every placement (a=d,d=a) and shows the new rows' photos")
    mark = len(output)
    send(b"g")  # back to the top: those photos are placed again by ID, not sent again
    wait_until(lambda: DELETE_PLACEMENTS in output[mark:] and
               len({y for (y, x, _) in placements(KITTY_AGAIN, mark) if x == 3 and y in ROW_TOPS}) >= 9,
               "the top rows' photos were not placed again by their IDs")
    if placements(KITTY, mark):
        fail("photos the terminal already has were transmitted again", bytes(output))
    print(f"ok - kitty: back at the top, the 9 photos are placed again by ID ({len(output) - mark} bytes in all)")
    mark = len(output)
    send(b"\r")  # the detail view: one large photo
    wait_until(lambda: DELETE_PLACEMENTS in output[mark:] and any(c >= 20 for (_, _, _, _, c, _) in placements(KITTY, mark)),
               "the detail view did not replace the thumbnails with one large photo")
    big = [p for p in placements(KITTY, mark) if p[4] >= 20][0]
    assert big[2] == big[4] * CELL_W and big[3] == big[5] * CELL_H, big
    print(f"ok - kitty: the detail view shows the photo at {big[4]}x{big[5]} cells ({big[2]}x{big[3]} px)")
    mark = len(output)
    send(b"q")  # back to the list
    wait_until(lambda: DELETE_PLACEMENTS in output[mark:] and len(placements(KITTY_AGAIN, mark)) >= 9,
               "going back did not clear the detail photo and place the thumbnails again")
    mark = len(output)
    send(b"q")
    wait_until(lambda: DELETE_ALL in output[mark:], "quitting left the photos in the terminal")
    print("ok - kitty: back to the list and quitting clear the photos (a=d,d=A frees them)")
elif MODE == "sixel":
    wait_until(lambda: len({p[0] for p in row_photos(placements(SIXEL))}) >= 9,
               "no sixel image for each of the 9 visible thumbnails (60x36 px raster: 6x2 cells)")
    photos = row_photos(placements(SIXEL))
    assert all(c == 6 and r == 2 for _, c, r in photos), photos
    if b"\x1b_Ga=T" in output:
        fail("kitty graphics sent to a sixel-only terminal", bytes(output))
    print(f"ok - sixel: {len(row_photos(placements(SIXEL)))} thumbnails as sixel images (raster 60x36, 6x2 cells) at their rows' cells")
    mark = len(output)
    send(b"G")
    wait_until(lambda: len(row_photos(placements(SIXEL, mark))) >= 9, "scrolling did not draw the new rows' photos")
    print("ok - sixel: scrolling draws the visible rows' photos again")
    send(b"q")
else:
    # Symbols: after the query times out, block symbols in 256 colours and no graphics at all.
    wait_until(lambda: re.search(rb"38;5;\d+m(?:\x1b\[48;5;\d+m)?\xe2[\x94-\x96][\x80-\xbf]", bytes(output)) is not None,
               "no symbol thumbnails (256-colour block characters)")
    if b"\x1b_Ga=T" in output or re.search(rb"\x1bP[0-9;]*q", bytes(output)):
        fail("graphics were sent to a terminal that answered nothing", bytes(output))
    print("ok - silent terminal: symbols, no kitty or sixel output")
    send(b"q")

deadline = time.time() + TIMEOUT
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    pump(0.1)
else:
    fail("foodpin did not exit", bytes(output))
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    fail(f"foodpin exited with status {status}", bytes(output))
print(f"ok - {MODE}: q exits 0")
