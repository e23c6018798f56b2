#!/usr/bin/env bash
# Builds local stand-ins for the two base images the lab uses, under their real names, for machines that
# cannot reach Docker Hub:
#   node:20-bookworm-slim  — Debian bookworm (debootstrap --variant=minbase) + this host's node and npm,
#                            plus what `npm ci` needs to compile better-sqlite3 when no prebuilt binary can
#                            be downloaded (python3, make, g++ and the Node headers)
#   haproxy:2.6            — Debian bookworm + Debian's haproxy package (2.6), config at
#                            /usr/local/etc/haproxy/haproxy.cfg like the official image
# Needs root, docker, debootstrap. Images that already exist are kept (pass --force to rebuild).
set -euo pipefail

force=0
[ "${1:-}" = "--force" ] && force=1
work=${KEMU_IMAGE_WORK:-/var/tmp/kemu-base-images}
mkdir -p "$work"

# The Debian mirror this machine's apt uses (deb822 "URIs:" or a one-line "deb URL bookworm main").
mirror=$({ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null || true; } \
  | awk '/^URIs:/ && $2 ~ /debian\/?$/ {print $2; exit} /^deb / && $3 ~ /^bookworm$/ {print $2; exit}')
mirror=${mirror:-http://deb.debian.org/debian}
echo "Debian mirror: $mirror"

have() { docker image inspect "$1" >/dev/null 2>&1 && [ $force -eq 0 ]; }

rootfs() { # rootfs NAME EXTRA_PACKAGES → imports kemu-base/NAME:bookworm
  local name=$1 include=$2 dir="$work/$1"
  if have "kemu-base/$name:bookworm"; then return; fi
  rm -rf "$dir"
  echo "debootstrap $name (packages: ${include:-none})"
  debootstrap --variant=minbase ${include:+--include="$include"} bookworm "$dir" "$mirror" >"$work/$name.log" 2>&1 \
    || { tail -20 "$work/$name.log"; exit 1; }
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
  tar -C "$dir" -c . | docker import -c 'CMD ["bash"]' - "kemu-base/$name:bookworm" >/dev/null
  rm -rf "$dir"
}

if ! have node:20-bookworm-slim; then
  rootfs node "ca-certificates,python3,make,g++"
  ctx=$(mktemp -d)
  node_bin=$(command -v node)
  cp "$node_bin" "$ctx/node"
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")   # …/lib/node_modules/npm
  cp -a "$npm_dir" "$ctx/npm"
  node_inc=$(dirname "$(dirname "$node_bin")")/include/node
  if [ -d "$node_inc" ]; then cp -a "$node_inc" "$ctx/include-node"; else mkdir "$ctx/include-node"; fi
  # This host's CA bundle: the registry may sit behind a proxy whose CA only the host trusts.
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/ca-certificates.crt"
  cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM kemu-base/node:bookworm
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY include-node /usr/local/include/node
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
# node-gyp finds the headers here instead of downloading them.
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && printf 'nodedir=/usr/local\ncafile=/etc/ssl/certs/ca-certificates.crt\nfund=false\naudit=false\nupdate-notifier=false\n' > /usr/local/etc/npmrc \
 && node --version && npm --version
ENV NODE_VERSION=stand-in
CMD ["node"]
DOCKERFILE
  docker build -q -t node:20-bookworm-slim "$ctx" >/dev/null
  rm -rf "$ctx"
  echo "built node:20-bookworm-slim ($(docker run --rm node:20-bookworm-slim node --version))"
fi

if ! have haproxy:2.6; then
  rootfs haproxy "haproxy"
  ctx=$(mktemp -d)
  cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM kemu-base/haproxy:bookworm
RUN mkdir -p /usr/local/etc/haproxy /var/lib/haproxy && ln -sf /usr/sbin/haproxy /usr/local/sbin/haproxy
STOPSIGNAL SIGUSR1
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
DOCKERFILE
  docker build -q -t haproxy:2.6 "$ctx" >/dev/null
  rm -rf "$ctx"
  echo "built haproxy:2.6 ($(docker run --rm haproxy:2.6 haproxy -v | head -1))"
fi
docker image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' | grep -E '^(node:20-bookworm-slim|haproxy:2.6|kemu-base/)' || true
