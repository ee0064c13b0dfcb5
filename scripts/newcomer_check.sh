#!/usr/bin/env bash
# The newcomer's path, checked: build a fresh virtual environment from binder/ alone plus this
# repository (as repo2docker would), then execute every chapter offline in it. A dependency the
# Binder image would miss fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
env_dir=$(mktemp -d)
trap 'rm -rf "$env_dir"' EXIT
start=$(date +%s)
python3 -m venv "$env_dir/venv"
"$env_dir/venv/bin/python" -m pip install -q --upgrade pip
"$env_dir/venv/bin/python" -m pip install -q -r binder/requirements.txt
PATH="$env_dir/venv/bin:$PATH" bash binder/postBuild
built=$(date +%s)
echo "newcomer: environment built in $((built - start)) s"
PATH="$env_dir/venv/bin:$PATH" ANTHROPIC_API_KEY= "$env_dir/venv/bin/atlas-kit" course --out "$env_dir/course"
done_at=$(date +%s)
echo "newcomer: every chapter ran offline in $((done_at - built)) s (total $((done_at - start)) s)"
