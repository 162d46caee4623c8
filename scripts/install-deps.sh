#!/bin/sh
# Installs the Debian packages deja needs when they are missing (as root), or names them.
set -e
PKGS="cmake make gcc pkg-config libzstd-dev libxxhash-dev libcmocka-dev libcapstone-dev libdw-dev libelf-dev gdb procps strace"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "deja: installing Debian packages:$missing" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
else
  echo "deja: missing Debian packages:$missing" >&2
  echo "deja: install them with: sudo apt-get install$missing" >&2
  exit 1
fi
