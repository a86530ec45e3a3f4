#!/usr/bin/env bash
# Build deploy/Containerfile and run the image as compose.yaml runs it: the web process
# (--queue procrastinate) and a worker, on PostgreSQL, then check a file through the
# service and read the report. Run from anywhere, as root, with podman installed:
#     bash deploy/try-image.sh
# CI runs it (.ci/run). It needs no registry but Debian's and PyPI: when the Containerfile's
# base image cannot be pulled (this project's machines reach no container registry), it
# makes one with debootstrap, Debian bookworm with its Python (3.11), and builds on that
# (--build-arg BASE_IMAGE). PostgreSQL is the machine's own (a role and a database made for
# the run, dropped after it), reached over 127.0.0.1: the containers share the host's network,
# since a bridge needs what such a machine may not have.
# What it shows: the image builds; `menace serve` and `menace worker` start from it as a
# non-root user with compose's security options; a check sent to the web process is graded
# by the worker in bubblewrap inside its container, and the report says so.
set -euo pipefail
cd "$(dirname "$0")/.."

# This machine's kernel: no CAP_SYS_RESOURCE (no limit may be raised) and cgroup v1, so
# runc with cgroupfs, and limits no higher than this shell's own.
podman=(podman --runtime runc --cgroup-manager=cgroupfs)
limits=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit "nproc=4096:4096")
base=docker.io/library/python:3.12-slim-bookworm
image=localhost/menace-course:try
run_id="try$$"

if ! "${podman[@]}" image exists "$base" && ! "${podman[@]}" pull -q "$base" >/dev/null 2>&1; then
    base=localhost/menace-base:bookworm
    if ! "${podman[@]}" image exists "$base"; then
        echo "+ no registry: making $base with debootstrap"
        rootfs=$(mktemp -d)
        debootstrap --variant=minbase --include=python3,python3-venv,python-is-python3,ca-certificates \
            bookworm "$rootfs" http://deb.debian.org/debian >/dev/null
        # This machine's certificate authorities: its HTTPS goes through them.
        cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
        tar -C "$rootfs" -c . | "${podman[@]}" import - "$base" >/dev/null
        rm -rf "$rootfs"
    fi
fi
echo "+ podman build -f deploy/Containerfile (base: $base)"
"${podman[@]}" build -q --network host "${limits[@]}" --build-arg "BASE_IMAGE=$base" \
    -f deploy/Containerfile -t "$image" . >/dev/null

password=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
database="menace_$run_id"
runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE $database LOGIN PASSWORD '$password'" -c "CREATE DATABASE $database OWNER $database"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
db_url="postgresql://$database:$password@127.0.0.1/$database"
workdir=$(mktemp -d)

cleanup() {
    "${podman[@]}" rm -f -t 5 "web-$run_id" "worker-$run_id" >/dev/null 2>&1 || true
    runuser -u postgres -- psql -q -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" \
        -c "DROP ROLE IF EXISTS $database" || true
    rm -rf "$workdir"
}
trap cleanup EXIT

# compose.yaml's x-menace options, and each service's command and environment.
service=("${podman[@]}" run -d --network host "${limits[@]}"
    --security-opt seccomp=unconfined --security-opt apparmor=unconfined
    --security-opt systempaths=unconfined -e "MENACE_DB=$db_url")
echo "+ the web process: serve --queue procrastinate, on 127.0.0.1:$port"
"${service[@]}" --name "web-$run_id" -e MENACE_HOST=127.0.0.1 -e "MENACE_PORT=$port" \
    -e "MENACE_PUBLIC_URL=http://127.0.0.1:$port" "$image" serve --queue procrastinate >/dev/null
for _ in $(seq 120); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    # /healthz is 503 until a worker is alive: any answer means the web process is up
    curl -sS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && break
    sleep 0.5
done
echo "+ a worker: worker --concurrency 1"
"${service[@]}" --name "worker-$run_id" -e MENACE_CONCURRENCY=1 "$image" worker >/dev/null

token=$("${podman[@]}" run --rm --network host "${limits[@]}" -e "MENACE_DB=$db_url" "$image" \
    users add image-check --db "$db_url" | awk '{print $2; exit}')
echo "+ POST /api/v1/checks?wait=60: examples/after_game_student.py, as a signed-in student"
status=0
curl -fsS --max-time 120 -H "Authorization: Bearer $token" -H "Content-Type: application/json" \
    --data-binary @<(python3 -c 'import json; print(json.dumps({"challenge": "after_game", "filename": "after_game.py", "source": open("examples/after_game_student.py").read()}))') \
    "http://127.0.0.1:$port/api/v1/checks?wait=60" >"$workdir/answer.json" || status=$?
if [ "$status" -ne 0 ] || ! python3 - "$workdir/answer.json" <<'EOF'
import json
import sys

answer = json.load(open(sys.argv[1]))
report = answer.get("report") or {}
print(f"  status {report.get('status')}, score {report.get('score')}/{report.get('max_score')}, sandbox {report.get('sandbox')}")
sys.exit(0 if report.get("passed") is True and report.get("sandbox") == "bwrap" else 1)
EOF
then
    echo "the image did not check the file: its containers' logs follow" >&2
    cat "$workdir/answer.json" >&2 || true
    "${podman[@]}" logs "web-$run_id" 2>&1 | tail -30 >&2
    "${podman[@]}" logs "worker-$run_id" 2>&1 | tail -30 >&2
    exit 1
fi
echo "the image built, served and checked a file in bubblewrap"
