#!/bin/sh
# Runs $PERCALL_NETNS_EXEC with these arguments in a new, empty network namespace: its only interface
# is the namespace's own loopback, so the program (Chromium, for the browser pool) can open no
# connection and send no packet to any address of this machine or beyond. Playwright talks to
# Chromium over --remote-debugging-pipe (inherited file descriptors), which needs no network.
# Fails closed: when no namespace can be made, the program is not started at all.
set -eu
target="${PERCALL_NETNS_EXEC:?PERCALL_NETNS_EXEC is not set}"
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 && unshare --net -- true 2>/dev/null; then
  exec unshare --net -- "$target" "$@"
fi
if command -v bwrap >/dev/null 2>&1 && bwrap --unshare-net --dev-bind / / --die-with-parent -- true 2>/dev/null; then
  exec bwrap --unshare-net --dev-bind / / --die-with-parent -- "$target" "$@"
fi
echo "percall: cannot create a network namespace (needs root with unshare, or bwrap); refusing to start $target" >&2
exit 126
