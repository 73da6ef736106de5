#!/usr/bin/env bash
# sharing.sh on one `localcloud serve` backed by a private PostgreSQL cluster, alice, bob and carol each on their own
# data directory: see sharing.sh for the steps. CI runs every script, so this runs that mode.
exec bash "$(dirname "$0")/sharing.sh" postgres
