#!/bin/sh
# Starts PostgreSQL in the foreground. On the first start (an empty volume) it makes the cluster
# first: superuser POSTGRES_USER with POSTGRES_PASSWORD, database POSTGRES_DB, password
# (SCRAM) logins from the network, trusted connections over the container's own socket. As in
# Docker Hub's image, POSTGRES_PASSWORD_FILE names a file holding the password (a compose secret).
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres-entrypoint: POSTGRES_PASSWORD and POSTGRES_PASSWORD_FILE are both set; set one" >&2
    exit 1
  fi
  # $(...) drops the file's trailing newlines.
  POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE") || {
    echo "postgres-entrypoint: cannot read POSTGRES_PASSWORD_FILE=$POSTGRES_PASSWORD_FILE" >&2
    exit 1
  }
fi
if [ -z "${POSTGRES_PASSWORD:-}" ]; then
  echo "postgres-entrypoint: set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE" >&2
  exit 1
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password_file=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$password_file"
  initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$password_file" \
    --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$password_file"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait --silent start
    createdb --username="$POSTGRES_USER" "$POSTGRES_DB"
    pg_ctl --pgdata="$PGDATA" --mode=fast --wait --silent stop
  fi
  echo "postgres-entrypoint: made the cluster, user $POSTGRES_USER, database $POSTGRES_DB"
fi

exec postgres -D "$PGDATA" -c listen_addresses='*'
