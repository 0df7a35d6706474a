#!/usr/bin/env bash
# A private PostgreSQL server for the trace store's tests (trace/ and the
# gateway's, which read $DRAGOMAN_POSTGRES).
#
#   .ci/postgres.sh start DIR   # prints the connection URL on its last line
#   .ci/postgres.sh stop DIR    # stops the server DIR holds, if running
#
# start installs Debian's PostgreSQL (apt-get) when no server binaries are
# found, makes a cluster in DIR (which must be empty or absent; it is made
# owned by the user the server runs as), starts it on a free loopback TCP port
# with its Unix socket in DIR/sock (no system directory is touched, and no
# other server on the machine is seen), and creates the database
# dragoman_test. The superuser "postgres" has a password made for this
# cluster; the URL carries it. initdb and postgres refuse to run as root: as
# root they run as the "postgres" user (made if missing, by useradd).
# scripts/test.sh runs stop at exit, so that the server never outlives a run.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: .ci/postgres.sh start|stop DIR" >&2; exit 2; }

bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] && { echo "$d"; return 0; }
  done
  return 1
}

# as runs a command as the server's user: root may not run initdb or postgres.
runas=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
  runas=(runuser -u postgres --)
fi
as() { "${runas[@]}" "$@"; }

case "$cmd" in
stop)
  bin=$(bindir) || exit 0
  if [ -f "$dir/data/postmaster.pid" ]; then
    as "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  fi
  exit 0
  ;;
start) ;;
*) echo "usage: .ci/postgres.sh start|stop DIR" >&2; exit 2 ;;
esac

if ! bin=$(bindir); then
  echo "postgres.sh: installing Debian's PostgreSQL" >&2
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >&2
  # The package would start a cluster of its own (port 5432) that outlives
  # the run: policy-rc.d forbids starting services during the install.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy"
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql >&2 || { [ -n "$policy" ] && $SUDO rm -f "$policy"; exit 1; }
  [ -n "$policy" ] && $SUDO rm -f "$policy"
  bin=$(bindir) || { echo "postgres.sh: no PostgreSQL server binaries under /usr/lib/postgresql after the install" >&2; exit 1; }
fi
echo "postgres.sh: $("$bin/postgres" --version)" >&2

mkdir -p "$dir"
if [ -n "$(ls -A "$dir")" ]; then
  echo "postgres.sh: $dir is not empty" >&2
  exit 1
fi
mkdir -p "$dir/sock"
[ "$(id -u)" = 0 ] && chown -R postgres: "$dir"
chmod 700 "$dir"
# The password: only this cluster's, readable by its user.
pass=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 20)
printf '%s\n' "$pass" >"$dir/pwfile"
[ "$(id -u)" = 0 ] && chown postgres: "$dir/pwfile"
as "$bin/initdb" -D "$dir/data" -U postgres --pwfile="$dir/pwfile" --auth-local=trust --auth-host=scram-sha-256 \
  -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
rm -f "$dir/pwfile"

# A free port: one nothing answers on, tried until the server takes it.
for try in 1 2 3 4 5 6 7 8; do
  port=$((20000 + RANDOM % 20000))
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
  if as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir/sock -c max_connections=200" start >&2; then
    started=1
    break
  fi
  started=0
done
[ "${started:-0}" = 1 ] || { echo "postgres.sh: the server did not start" >&2; tail -n 20 "$dir/server.log" >&2 || true; exit 1; }
as "$bin/psql" -h "$dir/sock" -p "$port" -U postgres -d postgres -q -v ON_ERROR_STOP=1 -c 'CREATE DATABASE dragoman_test' >&2
echo "postgres.sh: server on 127.0.0.1:$port (socket $dir/sock), stop with: .ci/postgres.sh stop $dir" >&2
echo "postgres://postgres:$pass@127.0.0.1:$port/dragoman_test?sslmode=disable"
