# Mailyard's headless emulator (`mailyard serve`) as an image: docs/containers.md.
#
#   docker build -t mailyard:0.1.0 .            (or podman build --format docker: the HEALTHCHECK is Docker's format)
#   docker run --rm -p 127.0.0.1:4400:4400 -p 127.0.0.1:2525:2525 mailyard:0.1.0
#
# Named Dockerfile, not Containerfile: docker, podman, buildah, nerdctl and Compose's `build: .` all find
# it without -f. Three stages: the runtime dependencies (better-sqlite3 compiled when no prebuilt binary
# is reachable), the build of the CLI and the web UI, and the image, which gets only what `serve` runs.

FROM node:20-bookworm-slim AS runtime-deps
# better-sqlite3's install unpacks a prebuilt binary when one is reachable. When none is, that first
# `npm ci` fails, and the stage installs Python, make and a C++ compiler and runs it again: it compiles
# SQLite against Node's headers from the base image (npm_config_nodedir), never downloaded. The compiler
# stays in this stage: the image gets only node_modules.
ENV npm_config_nodedir=/usr/local
WORKDIR /build
COPY package.json package-lock.json ./
RUN { npm ci --omit=dev --no-audit --no-fund \
  || { echo "No prebuilt better-sqlite3 reachable: installing a compiler to build it" \
    && apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/* \
    && npm ci --omit=dev --no-audit --no-fund; }; } \
  # Of better-sqlite3's build, only the module itself runs: its sources, SQLite's and the object files go.
  && cd node_modules/better-sqlite3 \
  && find build -mindepth 1 -maxdepth 2 ! -path build/Release ! -path build/Release/better_sqlite3.node -exec rm -rf {} + \
  && rm -rf deps src

FROM node:20-bookworm-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
# Every dependency of the build, without install scripts: no Electron download, no SQLite compile (the
# build bundles JavaScript; better-sqlite3 comes from the stage above).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npx electron-vite build

FROM node:20-bookworm-slim
# Inside a container Mailyard listens on every address (a port published on the host reaches it), so
# the control API and the web UI need the control key: set MAILYARD_CONTROL_KEY, or read the one made
# at start from the log. The store is /data/mailyard (the platform data folder under XDG_DATA_HOME), on
# the /data volume; MAILYARD_MEMORY=true keeps nothing. Every `mailyard serve` option is its MAILYARD_*
# variable (docs/cli.md).
ENV NODE_ENV=production \
  MAILYARD_HOST=0.0.0.0 \
  MAILYARD_HTTP_PORT=4400 \
  MAILYARD_SMTP_PORT=2525 \
  XDG_DATA_HOME=/data
RUN mkdir /data && chown node:node /data
WORKDIR /app
COPY --from=runtime-deps /build/node_modules ./node_modules
COPY --from=build /build/package.json ./
COPY --from=build /build/bin/mailyard.js ./bin/
COPY --from=build /build/out/main/cli.js /build/out/main/mail-worker.js ./out/main/
COPY --from=build /build/out/main/chunks ./out/main/chunks
COPY --from=build /build/out/renderer ./out/renderer
COPY --from=build /build/build/container/healthcheck.mjs ./healthcheck.mjs
USER node
VOLUME /data
EXPOSE 4400 2525
# The liveness probe: /livez answers without a key (docs/containers.md).
HEALTHCHECK --interval=5s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/healthcheck.mjs"]
# Node is process 1 and gets SIGTERM itself: `docker stop` stops the emulator cleanly (well within a second).
ENTRYPOINT ["node", "/app/bin/mailyard.js"]
CMD ["serve"]
