# nerkh's production image (docs/deployment.md#the-image).
#
#   docker build -t nerkh --build-arg VERSION=$(node -p 'require("./package.json").version') \
#     --build-arg REVISION=$(git rev-parse HEAD) .     # or: podman build --format docker …
#   docker run -d -p 8080:8080 -v nerkh-data:/var/lib/nerkh --read-only --tmpfs /tmp \
#     --cap-drop ALL --security-opt no-new-privileges nerkh
#   docker exec CONTAINER nerkh keys issue --org "Example" --purpose "trial"
#
# Without a registry, scripts/node-base-image.sh builds both base images under the same names.

# Build: every dependency (esbuild among the dev ones), then the bundle and what it needs beside it.
FROM node:24-bookworm-slim AS build
# better-sqlite3 compiles its addon (no prebuilt binary is downloaded where only the npm registry is
# reached); it builds against the headers of the Node.js in this image, never downloaded ones.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
COPY packages/mcp/package.json packages/mcp/
# Behind a proxy that re-signs TLS, pass its CA: --secret id=npm_ca,src=/path/to/ca.pem (the
# certificate is mounted for this step alone and stays out of the image).
RUN --mount=type=cache,target=/root/.npm \
    --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export npm_config_cafile=/run/secrets/npm_ca; fi \
 && npm ci
COPY tsconfig.json ./
COPY bin bin
COPY src src
RUN npm run build
# What runs, in /out: the bundle (with its legal notices), the bin, package.json (by which the
# service finds its folder), the non-TypeScript files under src/ it reads (the store's thread
# script, docs/decisions/0028-one-production-bundle.md), and from node_modules only the packages
# the bundle leaves out and the font the site serves (ops/container/runtime-modules.mjs).
COPY ops/container/runtime-modules.mjs /tmp/
RUN mkdir -p /out/src \
 && find src -type f ! -name '*.ts' -exec cp --parents {} /out/ \; \
 && cp -r dist bin package.json /out/ \
 && node /tmp/runtime-modules.mjs /app /out

# Run: Debian with Node.js alone (the node binary of the build stage's image: no npm, npx or
# headers), tini as PID 1, which forwards signals to node and reaps zombies, and an unprivileged
# user with a numeric uid, which Kubernetes' runAsNonRoot can check.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 nerkh \
 && useradd --system --uid 10001 --gid nerkh --home-dir /var/lib/nerkh --no-create-home \
      --shell /usr/sbin/nologin nerkh \
 && install -d -o nerkh -g nerkh -m 0750 /var/lib/nerkh
COPY --from=build /usr/local/bin/node /usr/local/bin/node
WORKDIR /app
COPY --from=build /out/ ./
COPY catalog catalog
COPY content content
COPY sources sources
COPY ops/container/probe.js /usr/local/bin/nerkh-probe
RUN ln -s /app/bin/nerkh.js /usr/local/bin/nerkh
# Listens on every interface of the container: the public API on 8080, the operations listener
# (metrics, probes) on 9464, which is not to be published to clients (docs/operations.md).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    NERKH_METRICS_HOST=0.0.0.0 \
    NERKH_METRICS_PORT=9464 \
    NERKH_DATA_DIR=/var/lib/nerkh
# The one place nerkh writes, besides /tmp (SQLite's temporary files): the root filesystem may be
# read-only (docs/deployment.md#restricted-runs).
VOLUME /var/lib/nerkh
EXPOSE 8080 9464
USER 10001:10001
# Healthy while the instance is ready: a snapshot loaded, stale or not, and the store answering
# (/readyz on the operations listener, any role; docs/operations.md#probes). nerkh-probe is
# ops/container/probe.js: 2xx within 2 s.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD nerkh-probe "http://127.0.0.1:${NERKH_METRICS_PORT}/readyz"
# The bin starts node with the flags the service is sized for (docs/deployment.md#node-flags).
ENTRYPOINT ["tini", "--", "nerkh"]
CMD ["serve"]
# Last, so that a new commit rebuilds no layer: --build-arg VERSION=… --build-arg REVISION=…
# (docs/deployment.md#the-image).
ARG VERSION=""
ARG REVISION=""
# Podman's builder (buildah 1.28, Debian bookworm's) finds a LABEL step in its cache by the step's
# text alone, so a new REVISION kept the last build's label; a RUN step's cache key holds the build
# arguments, and a step whose parent changed is never taken from the cache. An empty layer.
RUN true
LABEL org.opencontainers.image.title="nerkh" \
      org.opencontainers.image.source="https://github.com/nerkh/nerkh" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
