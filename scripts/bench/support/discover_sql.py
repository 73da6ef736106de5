#!/usr/bin/env python3
"""The Discover query exactly as the PostgreSQL store sent it, from a server log written with
log_min_duration_statement = 0: the first `execute` of a records query (named when prepared), its $N parameters
replaced by the logged literals. Prints one SQL statement.

    discover_sql.py SERVER_LOG > discover.sql
"""
import re, sys

lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
for i, line in enumerate(lines):
    # LIMIT is a number since the store prepares the page (a bound one before).
    m = re.search(r"execute [^:]*: (SELECT .* FROM \S+\.records r WHERE .* LIMIT (?:\$\d+|\d+))$", line)
    if not m:
        continue
    sql = m.group(1)
    detail = lines[i + 1] if i + 1 < len(lines) else ""
    params = dict(re.findall(r"\$(\d+) = ('(?:[^']|'')*'|NULL)", detail))
    for n in sorted(params, key=int, reverse=True):   # $10 before $1
        sql = sql.replace(f"${n}", params[n])
    print(sql + ";")
    sys.exit(0)
sys.exit("the Discover query was not found in the server's statement log")
