#!/usr/bin/env bash
# Replaces compose.yaml's API replicas one at a time, each on the image and settings the compose
# file names now, so that the balancer always has the others to send requests to
# (docs/deployment.md#compose). `compose up -d` would recreate every replica at once, and
# podman-compose does not implement `deploy.update_config`.
#
#   ops/compose/rolling-restart.sh                                     # Docker Compose
#   COMPOSE=podman-compose ENGINE=podman ops/compose/rolling-restart.sh
#
# For each replica: stop it (SIGTERM: its readiness fails at once and the balancer takes it out
# while it still answers, then it exits), remove it, have compose create the missing replica
# (`up --no-recreate`, which leaves the others running), wait until the new one is ready, then
# until the balancer sends requests to every replica again. Run it from the directory holding
# compose.yaml, with the environment `up` was given (NERKH_FORM_SECRET, NERKH_IMAGE...).
#
#   COMPOSE               the compose command and its options (default: docker compose)
#   ENGINE                the container engine compose drives (default: docker)
#   COMPOSE_PROJECT_NAME  the project (default: this directory's name, as compose takes it)
#   NERKH_STOP_SECONDS    how long a stop may take before the engine kills (default: 30,
#                         compose.yaml's stop_grace_period)
#   NERKH_WAIT_SECONDS    how long to wait for a replica to be ready, and then in the balancer
#                         (default: 120)
set -euo pipefail

compose_command=${COMPOSE:-docker compose}
engine=${ENGINE:-docker}
project=${COMPOSE_PROJECT_NAME:-$(basename "$PWD" | tr '[:upper:]' '[:lower:]' | tr -cd 'a-z0-9_-')}
stop_seconds=${NERKH_STOP_SECONDS:-30}
wait_seconds=${NERKH_WAIT_SECONDS:-120}
service=api

say() { printf 'rolling-restart: %s\n' "$*"; }

# shellcheck disable=SC2086 # COMPOSE is a command with its options, split on purpose.
compose() { $compose_command --project-name "$project" "$@"; }

# The containers of a service of this project, by compose's labels (Docker Compose and
# podman-compose both set them).
containers_of() {
  "$engine" ps --quiet --no-trunc \
    --filter "label=com.docker.compose.project=$project" \
    --filter "label=com.docker.compose.service=$1"
}

# How many API replicas the balancer sends requests to: its health frontend's /servers, asked from
# inside its container with bash alone (the image carries no HTTP client).
usable_servers() {
  "$engine" exec "$balancer" bash -c '
    exec 3<>/dev/tcp/127.0.0.1/8404 || exit 1
    printf "GET /servers HTTP/1.0\r\nHost: localhost\r\n\r\n" >&3
    last=""
    while IFS= read -r -t 2 line <&3 || [[ -n $line ]]; do last=$line; line=""; done
    printf "%s" "$last"' 2>/dev/null || true
}

# Runs "$@" once a second until it succeeds; fails after wait_seconds.
wait_until() {
  local what=$1
  shift
  local deadline=$((SECONDS + wait_seconds))
  until "$@"; do
    if ((SECONDS > deadline)); then
      say "gave up after ${wait_seconds} s waiting for $what"
      return 1
    fi
    sleep 1
  done
}

ready() { "$engine" exec "$1" nerkh-probe http://127.0.0.1:9464/readyz >/dev/null 2>&1; }
balancer_has() { [[ $(usable_servers) == "$1" ]]; }

balancer=$(containers_of balancer | head -n 1)
[[ -n $balancer ]] || { say "no balancer container in project $project"; exit 1; }
mapfile -t replicas < <(containers_of "$service")
((${#replicas[@]} > 0)) || { say "no $service containers in project $project"; exit 1; }
count=${#replicas[@]}
wait_until "the balancer to send to all $count replicas" balancer_has "$count"
say "$count $service replicas in project $project, all in the balancer"

for old in "${replicas[@]}"; do
  started=$SECONDS
  name=$("$engine" inspect --format '{{.Name}}' "$old")
  "$engine" stop --time "$stop_seconds" "$old" >/dev/null
  "$engine" rm --volumes "$old" >/dev/null
  # podman-compose reports the replicas still running as names already in use; what counts is
  # that the missing one was created.
  up_output=$(compose up --detach --no-deps --no-build --no-recreate "$service" 2>&1) || true
  new=$(comm -13 <(printf '%s\n' "${replicas[@]}" | sort) <(containers_of "$service" | sort) | head -n 1)
  [[ -n $new ]] || { say "compose created no replica in place of ${name#/}: $up_output"; exit 1; }
  wait_until "${name#/}'s replacement to be ready" ready "$new"
  wait_until "the balancer to send to all $count replicas" balancer_has "$count"
  say "${name#/} replaced in $((SECONDS - started)) s; the balancer sends to all $count replicas"
  replicas=("${replicas[@]/$old/$new}")
done
