#!/bin/sh
# Whole-process benchmark of `assay hl7 get` and `assay x12 get` on 64 MiB
# inputs, run interleaved with `wc -l` of the same file (median of 5 runs
# each), and of `assay eval` on the bundled example and `assay --help` (the
# start-up alone) interleaved with a Go hello-world (median of 51 runs
# each: start-up is short and noisy), printing the ratios of wall and CPU
# time and the peak resident memory.
#
# usage: bench/run.sh [ASSAY_BINARY]
#
# With no argument it builds ./cmd/assay from this checkout with
# CGO_ENABLED=0, as the Go tool builds it on a machine with only Go installed
# (no C compiler) and as release binaries are built: a cgo build links libc
# dynamically, and loading it costs about 1.5 ms of start-up here, as much
# as a whole Go hello-world. The inputs are
# written by bench/gen into $BENCH_DIR (default /tmp/assay-bench) and kept
# between runs. Needs Go and wc.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${BENCH_DIR:-/tmp/assay-bench}
runs=${RUNS:-5}
size=${SIZE:-67108864}
mkdir -p "$dir"
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$dir/assay
	(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/assay)
fi
for k in hl7 x12; do
	if [ ! -s "$dir/big.$k" ] || [ ! -s "$dir/big.$k.n" ]; then
		(cd "$here" && go run ./bench/gen -kind "$k" -size "$size" -o "$dir/big.$k") >"$dir/big.$k.n"
	fi
done
nhl7=$(cat "$dir/big.hl7.n")
nx12=$(cat "$dir/big.x12.n")

cmp=$dir/cmp
(cd "$here" && go build -o "$cmp" ./bench/cmp)
hello=$dir/hello
(cd "$here" && CGO_ENABLED=0 go build -o "$hello" ./bench/hello)

# bench NAME FILE ARGS... runs `assay ARGS...` and `wc -l FILE` in turn,
# $runs times each (bench/cmp), and prints the medians of wall time and of
# CPU time (user + system, which a busy machine disturbs less), their
# ratios, and the command's peak resident memory (ru_maxrss, as GNU time -v
# reports it).
bench() {
	name=$1 file=$2
	shift 2
	"$cmp" -runs "$runs" -name "$name" -file "$file" -- "$bin" "$@"
}

echo "assay: $bin ($(wc -c <"$dir/big.hl7") byte HL7 batch, $(wc -c <"$dir/big.x12") byte X12 interchange; median of $runs)"
bench "hl7 get MSH[$nhl7].10" "$dir/big.hl7" hl7 get "$dir/big.hl7" "MSH[$nhl7].10"
bench "x12 get ST($nx12)02" "$dir/big.x12" x12 get "$dir/big.x12" "ST($nx12)02"
ex=$here/examples/priorauth
"$cmp" -runs "${EVAL_RUNS:-51}" -name "eval priorauth" -ref "$hello" -- \
	"$bin" eval --criteria "$ex/criteria.json" --sandbox "$ex/sandbox" --no-color
"$cmp" -runs "${EVAL_RUNS:-51}" -name "--help" -ref "$hello" -- "$bin" --help
