#!/usr/bin/env bash
# Builds local stand-ins for the two base images the lab uses, under their real names, for machines that
# cannot reach Docker Hub:
#   node:20-bookworm-slim  — Debian bookworm (debootstrap --variant=minbase) + this host's node and npm,
#                            plus what `npm ci` needs to compile better-sqlite3 when no prebuilt binary can
#                            be downloaded (python3, make, g++ and the Node headers)
#   haproxy:2.6            — Debian bookworm + Debian's haproxy package (2.6), config at
#                            /usr/local/etc/haproxy/haproxy.cfg like the official image
# Needs root, docker, debootstrap, and node/npm on this host (copied into the Node image).
# Images that already exist are kept (pass --force to rebuild).
# Each root filesystem is assembled on the host and turned into an image with `docker import` (no image
# build, so no builder and no deprecation warnings on any Docker version). One progress line per stage with
# the elapsed time; the details go to $KEMU_IMAGE_WORK/<image>.log (default /var/tmp/kemu-base-images).
set -euo pipefail

force=0
[ "${1:-}" = "--force" ] && force=1
work=${KEMU_IMAGE_WORK:-/var/tmp/kemu-base-images}
mkdir -p "$work"
t0=$SECONDS

elapsed() { local s=$((SECONDS - t0)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
say() { echo "[$(elapsed)] $*"; }
die() { echo "error: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "debootstrap needs root: run this script as root (sudo $0)"
command -v docker >/dev/null || die "no docker CLI: apt-get install docker.io"
command -v debootstrap >/dev/null || die "no debootstrap: apt-get install debootstrap"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer (start dockerd, or: systemctl start docker)"

# The Debian mirror this machine's apt uses (deb822 "URIs:" or a one-line "deb URL bookworm main").
mirror=$({ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null || true; } \
  | awk '/^URIs:/ && $2 ~ /debian\/?$/ {print $2; exit} /^deb / && $3 ~ /^bookworm$/ {print $2; exit}')
mirror=${mirror:-http://deb.debian.org/debian}

have() { docker image inspect "$1" >/dev/null 2>&1 && [ $force -eq 0 ]; }

# debootstrap DIR PACKAGES LOG: prints a line every 20 s (the last step from its log) so a 4-minute
# download-and-unpack does not look hung.
bootstrap() {
  local dir=$1 include=$2 log=$3 pid
  rm -rf "$dir"
  debootstrap --variant=minbase ${include:+--include="$include"} bookworm "$dir" "$mirror" >>"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do sleep 2; kill -0 "$pid" 2>/dev/null || break 2; done
    say "  debootstrap: $(grep -E '^I: ' "$log" | tail -1 | cut -c4-80)"
  done
  wait "$pid" || { tail -20 "$log" >&2; die "debootstrap failed (log: $log)"; }
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
}

# import DIR IMAGE LOG CHANGES...: the directory as a one-layer image.
import_dir() {
  local dir=$1 image=$2 log=$3
  shift 3
  local changes=()
  for c in "$@"; do changes+=(-c "$c"); done
  tar -C "$dir" -c . | docker import "${changes[@]}" - "$image" >>"$log" 2>&1 || { tail -5 "$log" >&2; die "docker import $image failed (log: $log)"; }
  rm -rf "$dir"
}

if ! have node:20-bookworm-slim; then
  log="$work/node.log"
  : >"$log"
  command -v node >/dev/null && command -v npm >/dev/null || die "node and npm are needed on this host (their binaries go into the image): install Node 20, e.g. apt-get install nodejs npm"
  say "node:20-bookworm-slim: debootstrap bookworm from $mirror (about 4 min; log: $log)"
  dir="$work/node"
  bootstrap "$dir" "ca-certificates,python3,make,g++" "$log"
  say "node:20-bookworm-slim: adding this host's node $(node --version) and npm $(npm --version)"
  node_bin=$(command -v node)
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")   # …/lib/node_modules/npm
  node_inc=$(dirname "$(dirname "$node_bin")")/include/node
  install -m 0755 "$node_bin" "$dir/usr/local/bin/node"
  mkdir -p "$dir/usr/local/lib/node_modules" "$dir/usr/local/include" "$dir/usr/local/etc"
  cp -a "$npm_dir" "$dir/usr/local/lib/node_modules/npm"
  # node-gyp finds the headers here instead of downloading them.
  if [ -d "$node_inc" ]; then cp -a "$node_inc" "$dir/usr/local/include/node"; else mkdir -p "$dir/usr/local/include/node"; fi
  # This host's CA bundle: the registry may sit behind a proxy whose CA only the host trusts.
  cp /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/ca-certificates.crt"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$dir/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$dir/usr/local/bin/npx"
  printf 'nodedir=/usr/local\ncafile=/etc/ssl/certs/ca-certificates.crt\nfund=false\naudit=false\nupdate-notifier=false\n' >"$dir/usr/local/etc/npmrc"
  say "node:20-bookworm-slim: docker import"
  import_dir "$dir" node:20-bookworm-slim "$log" 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' 'ENV NODE_VERSION=stand-in' 'CMD ["node"]'
  say "built node:20-bookworm-slim ($(docker run --rm node:20-bookworm-slim node --version))"
fi

if ! have haproxy:2.6; then
  log="$work/haproxy.log"
  : >"$log"
  say "haproxy:2.6: debootstrap bookworm + haproxy from $mirror (about 2 min; log: $log)"
  dir="$work/haproxy"
  bootstrap "$dir" "haproxy" "$log"
  mkdir -p "$dir/usr/local/etc/haproxy" "$dir/var/lib/haproxy" "$dir/usr/local/sbin"
  ln -sf /usr/sbin/haproxy "$dir/usr/local/sbin/haproxy"
  say "haproxy:2.6: docker import"
  import_dir "$dir" haproxy:2.6 "$log" 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' 'CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]'
  say "built haproxy:2.6 ($(docker run --rm haproxy:2.6 haproxy -v | head -1))"
fi
say "base images ready: $(docker image ls --format '{{.Repository}}:{{.Tag}} ({{.Size}})' | grep -E '^(node:20-bookworm-slim|haproxy:2.6) ' | tr '\n' ' ')"
