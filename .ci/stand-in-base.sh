#!/usr/bin/env bash
# A stand-in for the official `node:20-bookworm-slim` image, for machines that reach no image registry
# (CI here): Debian bookworm from the machine's own Debian mirror (debootstrap), slimmed as the official
# debian:bookworm-slim is, with this machine's Node 20 laid out as the official Node image lays it out.
# `podman build --pull=never` then builds the project's Dockerfile FROM it unchanged.
#
# Besides the official image, it carries this machine's CA bundle and npm's `cafile` setting: the network
# here reaches the npm registry through a TLS proxy whose CA only that bundle holds. A real base needs neither.
#
# Usage: .ci/stand-in-base.sh [IMAGE]   (default node:20-bookworm-slim; nothing is done if it exists)
set -euo pipefail
image="${1:-node:20-bookworm-slim}"
if podman image exists "$image"; then
  echo "stand-in base: $image exists already"
  exit 0
fi
started=$SECONDS
rootfs="$(mktemp -d)"
trap 'rm -rf "$rootfs"' EXIT

mirror="$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" >"$rootfs.log" 2>&1 ||
  { tail -20 "$rootfs.log"; echo "stand-in base: debootstrap failed"; exit 1; }
rm -f "$rootfs.log"

# As debian:bookworm-slim: no documentation, manual pages or translations, no package lists or
# downloaded packages (apt-get update fetches the lists again).
rm -rf "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* \
  "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log
cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/debian.sources"
rm -f "$rootfs/etc/apt/sources.list"

# Node as the official image has it: node in /usr/local/bin, npm and corepack in /usr/local/lib/node_modules,
# the headers in /usr/local/include/node (node-gyp compiles against them with npm_config_nodedir=/usr/local).
node_bin="$(command -v node)"
node_modules="$(dirname "$(readlink -f "$(command -v npm)")")/../.."
install -D -m 0755 "$(readlink -f "$node_bin")" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules" "$rootfs/usr/local/include" "$rootfs/usr/local/etc"
cp -a "$node_modules/npm" "$rootfs/usr/local/lib/node_modules/npm"
[ -d "$node_modules/corepack" ] && cp -a "$node_modules/corepack" "$rootfs/usr/local/lib/node_modules/corepack"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
[ -d "$node_modules/corepack" ] && ln -s ../lib/node_modules/corepack/dist/corepack.js "$rootfs/usr/local/bin/corepack"
cp -a "$(dirname "$(readlink -f "$node_bin")")/../include/node" "$rootfs/usr/local/include/node"

# This machine's TLS proxy (see above).
install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$rootfs/usr/local/etc/npmrc"

# The official image's unprivileged user.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

tar -C "$rootfs" -c . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_VERSION='"$(node --version | tr -d v)" \
  --change 'CMD ["node"]' - "$image" >/dev/null
echo "stand-in base: $image made in $((SECONDS - started)) s ($(podman image inspect --format '{{.Size}}' "$image" | awk '{ printf "%.0f MB", $1 / 1e6 }'))"
