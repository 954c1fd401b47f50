#!/usr/bin/env bash
# Makes the secrets compose.yaml mounts (docs/deployment.md#secrets), one file each, in
# NERKH_SECRETS_DIR (default ./secrets): PostgreSQL's and Redis's passwords, nerkh's URLs that
# carry them, and the contact form's key. Random, from /dev/urandom. A file already there is kept,
# so running it again never changes the password a database was made with.
#
#   scripts/compose-secrets.sh && docker compose up -d
#
# The folder is the owner's alone (0700); the files in it are readable by all (0644), since each
# service reads its own as a user of its image (nerkh uid 10001, postgres, redis) and a mounted
# file keeps its mode.
set -euo pipefail

dir=${NERKH_SECRETS_DIR:-./secrets}
install -d -m 0700 "$dir"

random_hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# Writes $2 to $dir/$1 unless that file exists; says which it did.
keep_or_write() {
  local path=$dir/$1
  if [[ -s $path ]]; then
    echo "compose secrets: $path kept"
  else
    (umask 022 && printf '%s\n' "$2" >"$path.new" && mv "$path.new" "$path")
    echo "compose secrets: $path written"
  fi
}

keep_or_write postgres_password "$(random_hex 24)"
keep_or_write redis_password "$(random_hex 24)"
keep_or_write form_secret "$(random_hex 32)"
# Hex passwords need no escaping in a URL.
keep_or_write database_url "postgres://nerkh:$(<"$dir/postgres_password")@postgres:5432/nerkh"
keep_or_write redis_url "redis://:$(<"$dir/redis_password")@redis:6379"
