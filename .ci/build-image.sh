#!/usr/bin/env bash
# The container image (docs/containers.md), built as its users build it, with podman here. .ci/run
# starts this in the background after its suites, so the build overlaps the package's installs and
# checks, and waits for it before the image's tests at its end.
#
# No image registry is reachable, so .ci/stand-in-base.sh makes the Dockerfile's base
# (node:20-bookworm-slim) from Debian's mirror and this machine's Node 20, and the build never pulls
# (--pull=never). The build's stages run side by side (--jobs 2) and read npm's cache (a bind mount
# for the build's RUN steps only: nothing of it lands in a layer), where .ci/keep-sqlite-build.mjs left
# the better-sqlite3 that `npm ci` compiled.
#
# Usage: .ci/build-image.sh IMAGE LOG   (exit 0 once IMAGE is built; its steps' output in LOG)
set -euo pipefail
image="$1"
log="$2"
repo="$(cd "$(dirname "$0")/.." && pwd)"
started=$SECONDS
if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null || ! command -v runc >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq podman buildah debootstrap runc >/dev/null
fi
export CONTAINERS_CONF="$repo/.ci/containers.conf"
echo "container: podman $(podman --version | awk '{ print $3 }') ready in $((SECONDS - started)) s"
"$repo/.ci/stand-in-base.sh"
step_started=$SECONDS
if ! podman build --pull=never --format docker --jobs 2 --volume "$(npm config get cache):/root/.npm" --tag "$image" "$repo" >"$log" 2>&1; then
  cat "$log"
  echo "container: the image build FAILED"
  exit 1
fi
echo "container: $image built in $((SECONDS - step_started)) s, $(podman image inspect --format '{{.Size}}' "$image" | awk '{ printf "%.0f MB", $1 / 1e6 }')"
