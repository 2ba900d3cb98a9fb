#!/usr/bin/env bash
# Makes PostgreSQL and Redis reachable at the DESIGN §7 defaults
# (127.0.0.1:5432 and 127.0.0.1:6379) for the integration and e2e tests:
# starts them when they are installed but stopped, and fails with a message
# saying how to install them when they are not. A URL set in
# SVC_TEST_DATABASE_URL or SVC_TEST_REDIS_URL is checked, never started.
set -euo pipefail

reachable() { # host port
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

wait_for() { # name host port
  for _ in $(seq 1 60); do
    reachable "$2" "$3" && return 0
    sleep 0.5
  done
  echo "services.sh: $1 did not come up at $2:$3 within 30 s" >&2
  return 1
}

hostport() { # url default-port -> "host port"
  local rest=${1#*://}
  rest=${rest#*@}
  rest=${rest%%/*}
  rest=${rest%%\?*}
  local host=${rest%:*} port=${rest##*:}
  [ "$host" = "$rest" ] && port=$2
  echo "$host $port"
}

ensure_postgres() {
  if [ -n "${SVC_TEST_DATABASE_URL:-}" ]; then
    read -r host port < <(hostport "$SVC_TEST_DATABASE_URL" 5432)
    reachable "$host" "$port" && return 0
    echo "services.sh: PostgreSQL is not reachable at $host:$port (SVC_TEST_DATABASE_URL)." >&2
    return 1
  fi
  reachable 127.0.0.1 5432 && return 0
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    local version
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    echo "services.sh: starting PostgreSQL $version" >&2
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    wait_for PostgreSQL 127.0.0.1 5432
    return
  fi
  cat >&2 <<'MSG'
services.sh: PostgreSQL is not installed (or not at 127.0.0.1:5432).
  Debian/Ubuntu: sudo apt-get install -y postgresql, then allow trust auth for
  user postgres on 127.0.0.1 and create the database "test" (createdb -U postgres test);
  or point SVC_TEST_DATABASE_URL at a server you run.
MSG
  return 1
}

ensure_redis() {
  if [ -n "${SVC_TEST_REDIS_URL:-}" ]; then
    read -r host port < <(hostport "$SVC_TEST_REDIS_URL" 6379)
    reachable "$host" "$port" && return 0
    echo "services.sh: Redis is not reachable at $host:$port (SVC_TEST_REDIS_URL)." >&2
    return 1
  fi
  reachable 127.0.0.1 6379 && return 0
  if command -v redis-server >/dev/null 2>&1; then
    echo "services.sh: starting Redis" >&2
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
    wait_for Redis 127.0.0.1 6379
    return
  fi
  cat >&2 <<'MSG'
services.sh: Redis is not installed (or not at 127.0.0.1:6379).
  Debian/Ubuntu: sudo apt-get install -y redis-server; or point SVC_TEST_REDIS_URL at a server you run.
MSG
  return 1
}

status=0
ensure_postgres || status=1
ensure_redis || status=1
[ $status -eq 0 ] && echo "services.sh: PostgreSQL and Redis are reachable" >&2
exit $status
