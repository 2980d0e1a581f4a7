#!/usr/bin/env bash
# Builds the image (Dockerfile) and runs the README's walk-through against a container of it, the
# way a team's first run goes: auth on, the configured admin signs in, owns the default
# organization (docs/decisions.md) and creates a key; the walk-through runs with that key; the
# dashboard answers at / and /login; the container runs as uid 1000 and stops on SIGTERM.
#
#   scripts/container-smoke.sh                  build with docker or podman, run, remove
#   scripts/container-smoke.sh --url URL        only the walk-through, against a server already
#                                               running on empty storage with auth on and the
#                                               default admin (PLANWARDEN_AUTH_DEFAULT_ADMIN_EMAIL
#                                               and _PASSWORD, read here too): `npm start`, a pod
#
# With neither docker nor podman usable (no binary, or no daemon to talk to) it prints
# "skipped: no docker or podman" and exits 0, so CI on a machine without containers passes.
# Needs curl and jq. Exits non-zero on the first failed step, naming it.
set -euo pipefail
cd "$(dirname "$0")/.."

# --url: the admin the server was started with (the same variables the server reads).
ADMIN_EMAIL=${PLANWARDEN_AUTH_DEFAULT_ADMIN_EMAIL:-admin@example.com}
ADMIN_PASSWORD=${PLANWARDEN_AUTH_DEFAULT_ADMIN_PASSWORD:-smoke-test-admin-password}
fail() {
  echo "container-smoke: FAILED: $*" >&2
  exit 1
}
step() { echo "container-smoke: $*"; }
# has TEXT NEEDLE: whether TEXT contains NEEDLE (no pipe into `grep -q`, whose early exit would
# fail curl under pipefail).
has() { [[ $1 == *"$2"* ]]; }

# walk_through BASE_URL: the README walk-through (client-led flow, report, auto-routing) plus the
# first-run path, over HTTP only.
walk_through() {
  # A namespace of its own, so the walk-through repeats against a server that already ran it.
  local base=$1 api="$1/api/v1" ns="smoke$$" jar key code
  jar=$(mktemp)
  # shellcheck disable=SC2064
  trap "rm -f '$jar' unit.smoke.json" RETURN
  step "health"
  curl -fsS "$base/health" | jq -e '.status == "healthy"' >/dev/null || fail "/health"
  step "dashboard at / and /login"
  for path in / /login; do
    has "$(curl -fsS "$base$path")" '<div id="root">' || fail "dashboard at $path"
  done
  step "first run: the configured admin signs in as owner of the default org"
  curl -fsS -c "$jar" -H 'content-type: application/json' "$api/auth/session" \
    -d "{\"email\": \"$ADMIN_EMAIL\", \"password\": \"$ADMIN_PASSWORD\"}" |
    jq -e '.org_id == "default" and .role == "owner"' >/dev/null || fail "sign-in as owner of the default org"
  key=$(curl -fsS -b "$jar" -H 'content-type: application/json' "$api/auth/keys" -d '{"role": "admin", "name": "smoke"}' | jq -r .key)
  [ -n "$key" ] && [ "$key" != null ] || fail "POST /auth/keys"
  local -a auth=(-H "X-API-Key: $key")
  code=$(curl -sS -o /dev/null -w '%{http_code}' "$api/terraform/rules")
  [ "$code" = 401 ] || fail "a request without a credential answered $code, not 401"
  step "walk-through: rules, ingest (9 units), next/PUT until 208, report"
  has "$(curl -fsS "${auth[@]}" "$api/terraform/rules")" '## ' || fail "GET /terraform/rules"
  [ "$(curl -fsS "${auth[@]}" --data-binary @resources/examples/aws-github-oidc-plan.json "$api/terraform/$ns/ingest" | jq length)" = 9 ] ||
    fail "ingest of aws-github-oidc-plan.json"
  local none='{"summary": "No rule applies.", "findings": [{"title": "No findings", "severity": "INFO",
    "rule_id": "NO-FINDINGS", "risk": "Checked against the ruleset.", "why_it_matters": "-",
    "suggested_next_step": "-", "confidence": "HIGH", "evidence": [], "resource_address": "-", "tags": []}]}'
  local n=0
  while [ "$(curl -sS "${auth[@]}" -o unit.smoke.json -w '%{http_code}' "$api/$ns/resource/next")" = 200 ]; do
    curl -fsS "${auth[@]}" -o /dev/null -X PUT -H 'content-type: application/json' \
      "$api/resource/$(jq -r .hash unit.smoke.json)/analysis" -d "$none" || fail "PUT analysis"
    n=$((n + 1))
    [ "$n" -le 9 ] || fail "next kept answering 200 after 9 units"
  done
  [ "$n" = 9 ] || fail "analysed $n units, not 9"
  has "$(curl -fsS "${auth[@]}" "$api/$ns/report?format=markdown&raw=true")" 'aws_iam' || fail "markdown report"
  # The HTML report renders in the template sandbox's worker thread.
  has "$(curl -fsS "${auth[@]}" "$api/$ns/report?format=html&raw=true")" '<html' || fail "html report (template worker)"
  step "walk-through: a pull-request diff through auto-routing"
  curl -fsS "${auth[@]}" --data-binary @resources/examples/s3-bucket-pull-request.diff "$api/$ns-pr/ingest/auto" >/dev/null ||
    fail "POST /$ns-pr/ingest/auto"
  step "walk-through passed against $base"
}

if [ "${1:-}" = --url ]; then
  walk_through "${2:?--url needs a base URL}"
  exit 0
fi

runtime=
for candidate in docker podman; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" info >/dev/null 2>&1; then
    runtime=$candidate
    break
  fi
done
if [ -z "$runtime" ]; then
  echo "container-smoke: skipped: no docker or podman"
  exit 0
fi

image=planwarden:smoke
name=planwarden-smoke-$$
data=planwarden-smoke-data-$$
cleanup() {
  "$runtime" rm -f "$name" >/dev/null 2>&1 || true
  "$runtime" volume rm -f "$data" >/dev/null 2>&1 || true
}
trap cleanup EXIT

step "building $image with $runtime"
"$runtime" build -t "$image" .
step "image size: $("$runtime" image inspect "$image" --format '{{.Size}}' | awk '{printf "%.0f MB", $1 / 1e6}')"
"$runtime" run -d --name "$name" -p 127.0.0.1::8000 -v "$data:/data" \
  -e PLANWARDEN_AUTH_ENABLED=true \
  -e PLANWARDEN_AUTH_DEFAULT_ADMIN_EMAIL="$ADMIN_EMAIL" \
  -e PLANWARDEN_AUTH_DEFAULT_ADMIN_PASSWORD="$ADMIN_PASSWORD" \
  -e PLANWARDEN_SECRET_KEY="$(head -c 32 /dev/urandom | base64)" \
  -e PLANWARDEN_JWT_SECRET="$(head -c 32 /dev/urandom | base64)" \
  "$image" >/dev/null
port=$("$runtime" port "$name" 8000/tcp | head -n 1 | sed 's/.*://')
base="http://127.0.0.1:$port"
for _ in $(seq 1 60); do
  curl -fsS "$base/health" >/dev/null 2>&1 && break
  sleep 1
done
[ "$("$runtime" exec "$name" id -u)" = 1000 ] || fail "the container does not run as uid 1000"
walk_through "$base"
step "SIGTERM stops the server (node is PID 1)"
"$runtime" stop -t 20 "$name" >/dev/null
[ "$("$runtime" inspect "$name" --format '{{.State.ExitCode}}')" = 0 ] || fail "exit code after SIGTERM is not 0"
step "passed"
