#!/usr/bin/env bash
# Runs the upstream StableHLO interpreter tests (openxla/stablehlo, stablehlo/tests/interpret/)
# through `systolic check --numerics spec` (the spec keeps subnormals; XLA:CPU, our default,
# flushes them) and prints one row per file: passed, failed, first error; then totals.
#
# The upstream files are not part of this repository (the project never copies upstream code
# or text): fetch them yourself into upstream/interpret/ (git-ignored), see the message printed
# when the folder is missing.
#
# Usage: scripts/upstream-check.sh [--no-build] [--full] [--dir DIR] [FILE...]
#   --no-build  use target/release/systolic as it is (default: cargo build --release first)
#   --full      print every failure message of every file after the table
#   --dir DIR   where the upstream .mlir files are (default: upstream/interpret, or
#               $SYSTOLIC_UPSTREAM_DIR)
#   FILE...     only these files (paths relative to DIR, or absolute)
# Environment: SYSTOLIC_BIN (the binary to run; implies nothing about building),
#   SYSTOLIC_CHECK_TIMEOUT (seconds per file, default 120).
# Exit status: 0 when every function of every file passed, 1 otherwise, 2 on bad usage.

set -u -o pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${SYSTOLIC_UPSTREAM_DIR:-$repo_root/upstream/interpret}"
build=1
full=0
only=()
per_file_timeout="${SYSTOLIC_CHECK_TIMEOUT:-120}"

while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --full) full=1 ;;
        --dir)
            [ $# -ge 2 ] || { echo "upstream-check: --dir needs a folder" >&2; exit 2; }
            dir="$2"
            shift
            ;;
        -h | --help)
            sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        -*) echo "upstream-check: unknown option $1 (try --help)" >&2; exit 2 ;;
        *) only+=("$1") ;;
    esac
    shift
done

if [ ! -d "$dir" ] || [ -z "$(find "$dir" -name '*.mlir' -print -quit 2>/dev/null)" ]; then
    cat >&2 <<EOF
upstream-check: no upstream test files in $dir

Put the .mlir files of openxla/stablehlo's folder stablehlo/tests/interpret/ there,
keeping its sub-folders (chlo/), for example:

    git clone --depth 1 https://github.com/openxla/stablehlo /tmp/stablehlo
    mkdir -p "$repo_root/upstream/interpret"
    cp -r /tmp/stablehlo/stablehlo/tests/interpret/. "$repo_root/upstream/interpret/"

or point --dir (or SYSTOLIC_UPSTREAM_DIR) at a checkout's stablehlo/tests/interpret.
The folder upstream/ is git-ignored: these files are never committed.
EOF
    exit 2
fi

bin="${SYSTOLIC_BIN:-$repo_root/target/release/systolic}"
if [ "$build" -eq 1 ]; then
    echo "building: cargo build --release -p systolic-cli" >&2
    (cd "$repo_root" && cargo build --release -p systolic-cli) >&2 || {
        echo "upstream-check: the build failed (see above)" >&2
        exit 1
    }
fi
if [ ! -x "$bin" ]; then
    echo "upstream-check: $bin does not exist; run without --no-build" >&2
    exit 2
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" # absolute: files run from $dir

files=()
if [ ${#only[@]} -gt 0 ]; then
    for f in "${only[@]}"; do
        case "$f" in
            /*) files+=("$f") ;;
            *) if [ -f "$dir/$f" ]; then files+=("$dir/$f"); else files+=("$f"); fi ;;
        esac
    done
else
    while IFS= read -r f; do files+=("$f"); done < <(find "$dir" -name '*.mlir' -type f | LC_ALL=C sort)
fi

# First failure message of a `systolic check` output: the first indented line after a FAIL
# line, else the FAIL line itself, else (the command itself failed) the first line of stderr.
first_error() {
    local out="$1" err="$2"
    local msg
    msg="$(awk '/^FAIL /{f=1; next} /^PASS /{f=0; next} f && /^ /{sub(/^ +/, ""); print; exit}' <<<"$out")"
    if [ -z "$msg" ]; then msg="$(grep -m1 '^FAIL ' <<<"$out")"; fi
    if [ -z "$msg" ]; then msg="$(grep -m1 -v '^[[:space:]]*$' <<<"$err")"; fi
    printf '%s' "$msg"
}

shorten() {
    local text="$1" width="$2"
    if [ "${#text}" -gt "$width" ]; then printf '%s...' "${text:0:$((width - 3))}"; else printf '%s' "$text"; fi
}

total_pass=0
total_fail=0
files_clean=0
files_with_failures=0
files_crashed=0
details=""
rows=""

for path in "${files[@]}"; do
    name="${path#"$dir"/}"
    out_file="$(mktemp)"
    err_file="$(mktemp)"
    # A file whose first RUN line passes arguments (`--args="[dense<…> : tensor<…>, …]"`) has
    # its parameterised functions run with them, as the upstream interpreter does.
    run_args="$(sed -n 's/^\/\/ RUN: stablehlo-translate.*--args="\([^"]*\)".*/\1/p' "$path" | head -1)"
    check=(check --numerics spec)
    if [ -n "$run_args" ]; then check+=(--args "$run_args"); fi
    # Run from the folder so that messages name the file as the table does.
    if [ "$name" != "$path" ]; then
        (cd "$dir" && timeout "$per_file_timeout" "$bin" "${check[@]}" "$name") >"$out_file" 2>"$err_file"
    else
        timeout "$per_file_timeout" "$bin" "${check[@]}" "$path" >"$out_file" 2>"$err_file"
    fi
    status=$?
    out="$(cat "$out_file")"
    err="$(cat "$err_file")"
    rm -f "$out_file" "$err_file"

    pass=$(grep -c '^PASS ' <<<"$out")
    fail=$(grep -c '^FAIL ' <<<"$out")
    note=""
    if [ "$status" -eq 124 ]; then
        note="TIMEOUT after ${per_file_timeout}s"
    elif [ "$status" -ge 100 ] || { [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; }; then
        # 101 is a Rust panic; any other non-zero status without a FAIL line is a crash too.
        note="CRASH (exit $status): $(grep -m1 -v '^[[:space:]]*$' <<<"$err")"
    fi
    if [ -n "$note" ]; then
        files_crashed=$((files_crashed + 1))
        fail=$((fail + 1))
        first="$note"
    else
        first="$(first_error "$out" "$err")"
    fi
    if [ "$fail" -eq 0 ]; then
        files_clean=$((files_clean + 1))
        [ "$pass" -eq 0 ] && first="(no argument-less public functions: nothing run)"
    else
        files_with_failures=$((files_with_failures + 1))
        details+="== $name"$'\n'
        [ -n "$out" ] && details+="$(grep -v '^PASS ' <<<"$out")"$'\n'
        [ -n "$err" ] && details+="$err"$'\n'
    fi
    total_pass=$((total_pass + pass))
    total_fail=$((total_fail + fail))
    rows+="$(printf '%-34s %6s %6s  %s' "$(shorten "$name" 34)" "$pass" "$fail" "$(shorten "$first" 110)")"$'\n'
done

printf '%-34s %6s %6s  %s\n' "file" "passed" "failed" "first error"
printf '%-34s %6s %6s  %s\n' "----" "------" "------" "-----------"
printf '%s' "$rows"
echo
echo "files: ${#files[@]} (${files_clean} clean, ${files_with_failures} with failures, ${files_crashed} crashed or timed out)"
echo "functions: ${total_pass} passed, ${total_fail} failed"

if [ "$full" -eq 1 ] && [ -n "$details" ]; then
    echo
    echo "failure messages:"
    printf '%s' "$details"
fi

[ "$total_fail" -eq 0 ]
