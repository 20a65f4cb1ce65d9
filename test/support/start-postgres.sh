#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster for the store's tests and print its URL on the last line.
# Installs PostgreSQL (Debian package) when it is missing. Reuses a server that already answers
# on the port. Run as root: the cluster itself runs as the `postgres` user, with trust auth,
# listening on 127.0.0.1 only.
#
#   url=$(bash test/support/start-postgres.sh | tail -n 1)
#   DOCKET_TEST_POSTGRES_URL="$url" npx vitest run test/store
set -euo pipefail

PORT="${DOCKET_TEST_POSTGRES_PORT:-5433}"
URL="postgres://postgres@127.0.0.1:${PORT}/postgres"

find_pgbin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

answers() {
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -h 127.0.0.1 -p "$PORT"
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
  fi
}

if answers; then
  echo "PostgreSQL already answers on 127.0.0.1:${PORT}" >&2
  echo "$URL"
  exit 0
fi

if ! PGBIN="$(find_pgbin)"; then
  echo "Installing PostgreSQL..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update >&2
  apt-get install -y --no-install-recommends postgresql >&2
  PGBIN="$(find_pgbin)"
fi

DATA="$(mktemp -d)"
SOCKETS="$(mktemp -d)"
chown postgres:postgres "$DATA" "$SOCKETS"
chmod 700 "$DATA"
su postgres -c "$PGBIN/initdb -D $DATA -U postgres --auth=trust -E UTF8 --locale=C.UTF-8" >&2
su postgres -c "$PGBIN/pg_ctl -D $DATA -l $DATA/server.log -o \"-p $PORT -c listen_addresses=127.0.0.1 -k $SOCKETS\" -w start" >&2

for _ in $(seq 1 50); do
  if answers; then
    echo "$URL"
    exit 0
  fi
  sleep 0.2
done
echo "PostgreSQL did not start; see $DATA/server.log" >&2
exit 1
