#!/bin/sh
# Whole-process benchmark of `assay hl7 get` and `assay x12 get` on 64 MiB
# inputs, run interleaved with `wc -l` of the same file (median of 5 runs
# each), printing the ratios and the peak resident memory.
#
# usage: bench/run.sh [ASSAY_BINARY]
#
# With no argument it builds ./cmd/assay from this checkout. The inputs are
# written by bench/gen into $BENCH_DIR (default /tmp/assay-bench) and kept
# between runs. Needs GNU time (/usr/bin/time; Debian package `time`).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${BENCH_DIR:-/tmp/assay-bench}
runs=${RUNS:-5}
size=${SIZE:-67108864}
mkdir -p "$dir"
if [ ! -x /usr/bin/time ]; then
	echo "bench: /usr/bin/time is missing (apt-get install time)" >&2
	exit 2
fi
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$dir/assay
	(cd "$here" && go build -o "$bin" ./cmd/assay)
fi
for k in hl7 x12; do
	if [ ! -s "$dir/big.$k" ] || [ ! -s "$dir/big.$k.n" ]; then
		(cd "$here" && go run ./bench/gen -kind "$k" -size "$size" -o "$dir/big.$k") >"$dir/big.$k.n"
	fi
done
nhl7=$(cat "$dir/big.hl7.n")
nx12=$(cat "$dir/big.x12.n")

# now prints the monotonic time in nanoseconds.
now() { date +%s%N; }

# median reads numbers, one a line, and prints their median.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# bench NAME FILE ARGS... runs `assay ARGS...` and `wc -l FILE` in turn,
# $runs times each, and prints the medians, their ratio and the peak RSS.
bench() {
	name=$1 file=$2
	shift 2
	cat "$file" >/dev/null # warm the page cache
	: >"$dir/t.cmd"
	: >"$dir/t.wc"
	i=0
	while [ "$i" -lt "$runs" ]; do
		t0=$(now)
		"$bin" "$@" >/dev/null 2>&1 || {
			echo "bench: $bin $* failed" >&2
			exit 1
		}
		t1=$(now)
		wc -l "$file" >/dev/null
		t2=$(now)
		echo $((t1 - t0)) >>"$dir/t.cmd"
		echo $((t2 - t1)) >>"$dir/t.wc"
		i=$((i + 1))
	done
	cmd=$(median <"$dir/t.cmd")
	wc=$(median <"$dir/t.wc")
	rss=$(/usr/bin/time -v "$bin" "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}')
	insize=$(wc -c <"$file")
	awk -v n="$name" -v c="$cmd" -v w="$wc" -v r="$rss" -v s="$insize" 'BEGIN {
		printf "%-28s %8.1f ms   wc -l %6.1f ms   ratio %5.2fx   peak RSS %7.1f MiB = %.2fx input\n",
			n, c / 1e6, w / 1e6, c / w, r / 1024, r * 1024 / s
	}'
}

echo "assay: $bin ($(wc -c <"$dir/big.hl7") byte HL7 batch, $(wc -c <"$dir/big.x12") byte X12 interchange; median of $runs)"
bench "hl7 get MSH[$nhl7].10" "$dir/big.hl7" hl7 get "$dir/big.hl7" "MSH[$nhl7].10"
bench "x12 get ST($nx12)02" "$dir/big.x12" x12 get "$dir/big.x12" "ST($nx12)02"
