#!/usr/bin/env bash
# Builds and runs a fuzz target on a snapshot of the last commit (default) or on the working
# tree, with one libFuzzer job, the corpus in fuzz/corpus/<target> and crashes in
# fuzz/artifacts/<target>.
#
# Why a snapshot: several people edit the work tree at once, and a half-written file elsewhere
# would break the fuzz build; the last commit always builds. The snapshot lives in
# fuzz/target/snapshot (git-ignored) and uses the fuzz/ sources of the working tree.
#
# Usage: fuzz/run.sh [--tree] [--seconds N] [--runs N] [--no-asan] [--target NAME] [-- LIBFUZZER_ARGS...]
#   --tree        fuzz the working tree as it is instead of the last commit
#   --seconds N   stop after N seconds (default 600; 0 = no time limit)
#   --runs N      stop after N executions (libFuzzer's -runs; default: no limit)
#   --no-asan     build without AddressSanitizer (3-5x more executions per second; still
#                 catches panics, overflows, timeouts and OOMs, not memory errors in unsafe code)
#   --target NAME the fuzz target (default parse_module)
# cargo-fuzz is installed when missing (cargo install cargo-fuzz --locked, a few minutes once).
# Environment: CARGO_BUILD_JOBS (default 1), FUZZ_TOOLCHAIN (e.g. "+nightly"; by default
#   stable Rust with RUSTC_BOOTSTRAP=1, which unlocks the -Z flags cargo-fuzz passes).

set -eu -o pipefail

fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(dirname "$fuzz_dir")"
target=parse_module
seconds=600
use_tree=0
runs=()
sanitizer=()
extra=()

while [ $# -gt 0 ]; do
    case "$1" in
        --tree) use_tree=1 ;;
        --seconds) seconds="$2"; shift ;;
        --target) target="$2"; shift ;;
        --runs) runs=("-runs=$2"); shift ;;
        --no-asan) sanitizer=(--sanitizer none) ;;
        --) shift; extra=("$@"); break ;;
        -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "fuzz/run.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

if ! command -v cargo-fuzz >/dev/null; then
    echo "fuzz/run.sh: cargo-fuzz is missing; installing it (cargo install cargo-fuzz --locked)" >&2
    cargo install cargo-fuzz --locked
fi

export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}"
toolchain=()
if [ -n "${FUZZ_TOOLCHAIN:-}" ]; then
    toolchain=("$FUZZ_TOOLCHAIN")
else
    export RUSTC_BOOTSTRAP=1
fi

mkdir -p "$fuzz_dir/corpus/$target" "$fuzz_dir/artifacts/$target"
# An empty corpus starts from the repository's small .npy files (npy_decode) or its MLIR files
# (the other targets read MLIR text).
if [ -z "$(find "$fuzz_dir/corpus/$target" -type f -print -quit)" ]; then
    if [ "$target" = npy_decode ]; then
        (cd "$repo_root" && git ls-files '*.npy') | while read -r f; do
            if [ "$(stat -c %s "$repo_root/$f")" -le 65536 ]; then
                cp "$repo_root/$f" "$fuzz_dir/corpus/$target/$(echo "$f" | tr / _)"
            fi
        done
    else
        "$repo_root/scripts/fuzz-seed.sh"
        if [ "$target" != parse_module ]; then
            cp "$fuzz_dir/corpus/parse_module/"* "$fuzz_dir/corpus/$target/"
        fi
    fi
fi

if [ "$use_tree" -eq 1 ]; then
    project="$fuzz_dir"
else
    snapshot="$fuzz_dir/target/snapshot"
    rm -rf "$snapshot"
    mkdir -p "$snapshot"
    (cd "$repo_root" && git archive HEAD) | tar -x -C "$snapshot"
    rm -rf "$snapshot/fuzz"
    mkdir -p "$snapshot/fuzz"
    cp -r "$fuzz_dir/Cargo.toml" "$fuzz_dir/src" "$fuzz_dir/fuzz_targets" "$snapshot/fuzz/"
    [ -f "$fuzz_dir/Cargo.lock" ] && cp "$fuzz_dir/Cargo.lock" "$snapshot/fuzz/"
    # Corpus and crashes stay in the real fuzz/ folder, whichever tree is built.
    ln -s "$fuzz_dir/corpus" "$snapshot/fuzz/corpus"
    ln -s "$fuzz_dir/artifacts" "$snapshot/fuzz/artifacts"
    project="$snapshot/fuzz"
    echo "fuzzing a snapshot of $(cd "$repo_root" && git log -1 --format='%h %s' | cut -c1-80)" >&2
fi

dict=()
[ -f "$fuzz_dir/$target.dict" ] && dict=("-dict=$fuzz_dir/$target.dict")

# The command-line target runs whole commands, which print their reports: keep them off the
# terminal (libFuzzer reports on stderr).
quiet=()
[ "$target" = cli_args ] && quiet=(-close_fd_mask=1)

cd "$project"
cargo "${toolchain[@]}" fuzz run "${sanitizer[@]}" --target-dir "$fuzz_dir/target/build" "$target" \
    -- -max_total_time="$seconds" "${runs[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "${dict[@]}" "${quiet[@]}" "${extra[@]}"
