#!/usr/bin/env bash
# Generate Python protobuf/gRPC code (with mypy stubs) from proto/chaodipi/v1/*.proto into
# chaodipi/v1/. With --check, regenerate into a temporary directory and fail if the committed
# files differ from what the generator produces.
set -euo pipefail

usage() { echo "usage: $0 [--check]" >&2; exit 2; }

check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  -h|--help) usage ;;
  *) usage ;;
esac
[ $# -le 1 ] || usage

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

PYTHON="${PYTHON:-python}"
out_rel="chaodipi/v1"
shopt -s nullglob
protos=(proto/chaodipi/v1/*.proto)
shopt -u nullglob
if [ ${#protos[@]} -eq 0 ]; then
  echo "gen_proto: no .proto files under proto/chaodipi/v1" >&2
  exit 1
fi

generate() {  # $1 = output root (the package tree chaodipi/v1 is created under it)
  local log
  if ! log="$("$PYTHON" -m grpc_tools.protoc -Iproto \
      --python_out="$1" --grpc_python_out="$1" \
      --mypy_out="$1" --mypy_grpc_out="$1" \
      "${protos[@]}" 2>&1)"; then
    printf '%s\n' "$log" >&2
    echo "gen_proto: protoc failed (is grpcio-tools and mypy-protobuf installed? pip install -e '.[dev]')" >&2
    exit 1
  fi
  # mypy-protobuf reports every file it writes; keep anything else protoc says.
  printf '%s\n' "$log" | grep -v -e '^Writing mypy to ' -e '^$' >&2 || true
}

generated_files() {  # $1 = directory; prints the generated files' names, sorted
  (cd "$1" && find . -maxdepth 1 -type f \
      \( -name '*_pb2.py' -o -name '*_pb2.pyi' -o -name '*_pb2_grpc.py' -o -name '*_pb2_grpc.pyi' \) \
      | sed 's|^\./||' | LC_ALL=C sort)
}

if [ "$check" -eq 0 ]; then
  mkdir -p "$out_rel"
  while IFS= read -r f; do rm -f "$out_rel/$f"; done < <(generated_files "$out_rel")
  generate .
  echo "gen_proto: generated $(generated_files "$out_rel" | wc -l) files in $out_rel/ from ${#protos[@]} .proto files"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
generate "$tmp"
mkdir -p "$out_rel"
if ! diff <(generated_files "$tmp/$out_rel") <(generated_files "$out_rel") >"$tmp/names.diff"; then
  echo "gen_proto --check: FAILED: the set of generated files in $out_rel/ is out of date" >&2
  echo "  ('<' missing from the work tree, '>' stale file with no .proto):" >&2
  sed 's/^/    /' "$tmp/names.diff" >&2
  echo "  Run scripts/gen_proto.sh and commit the result." >&2
  exit 1
fi
ignore_stamps=(
  -I '^# Protobuf Python Version: [0-9.]*$'
  -I "^GRPC_GENERATED_VERSION = '[0-9.]*'\$"
  -I '^    [0-9][0-9]*,$'
)
status=0
while IFS= read -r f; do
  # Version stamps alone (a newer grpcio-tools / protoc in the pinned range) are not drift.
  if ! diff -u "${ignore_stamps[@]}" "$out_rel/$f" "$tmp/$out_rel/$f" >"$tmp/file.diff"; then
    echo "gen_proto --check: FAILED: $out_rel/$f differs from freshly generated code:" >&2
    head -n 40 "$tmp/file.diff" | sed 's/^/    /' >&2
    status=1
  fi
done < <(generated_files "$tmp/$out_rel")
if [ "$status" -ne 0 ]; then
  echo "gen_proto --check: generated code is out of date with proto/ (or was made by another" >&2
  echo "  grpcio-tools/mypy-protobuf version: $("$PYTHON" -m pip show grpcio-tools 2>/dev/null \
    | awk '/^Version:/{print $2}')). Run scripts/gen_proto.sh and commit the result." >&2
  exit 1
fi
echo "gen_proto --check: OK ($(generated_files "$out_rel" | wc -l) files up to date)"
