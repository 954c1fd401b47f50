#!/bin/sh
# Starts Redis in the foreground with the password in the file REDIS_PASSWORD_FILE names (a
# compose secret): clients must AUTH. Refuses to start without one, since every container on the
# network can reach it.
set -eu
if [ -z "${REDIS_PASSWORD_FILE:-}" ]; then
  echo "redis-entrypoint: set REDIS_PASSWORD_FILE to a file holding the password" >&2
  exit 1
fi
# $(...) drops the file's trailing newlines.
password=$(cat "$REDIS_PASSWORD_FILE") || {
  echo "redis-entrypoint: cannot read REDIS_PASSWORD_FILE=$REDIS_PASSWORD_FILE" >&2
  exit 1
}
if [ -z "$password" ]; then
  echo "redis-entrypoint: $REDIS_PASSWORD_FILE is empty" >&2
  exit 1
fi
# Redis replaces its process title, so the password does not show in ps. The limiter keeps only
# the last window: nothing is saved to disk (docs/deployment.md#redis).
exec redis-server --bind 0.0.0.0 --requirepass "$password" --save "" --appendonly no "$@"
