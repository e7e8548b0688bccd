#!/bin/sh
# Whole-process benchmark of assay serve under many agents: bench/serveload
# starts `assay serve` with a seed of 10,000 Patients, runs RUNS runs at once
# (default 100) of REQUESTS mixed requests each (default 200: FHIR create and
# search, HL7 over HTTP and MLLP, file PUTs), completes them, and reads every
# snapshot back. With the Node fixture installed (npm ci in
# fhir/testdata/medplum) it also compares FHIR create and search with
# Medplum's FHIR engine in the same loop.
#
# usage: bench/serve.sh [ASSAY_BINARY]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${BENCH_DIR:-/tmp/assay-bench}
mkdir -p "$dir"
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$dir/assay
	(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/assay)
fi
(cd "$here" && go build -o "$dir/serveload" ./bench/serveload)
medplum=""
if command -v node >/dev/null 2>&1 && [ -d "$here/fhir/testdata/medplum/node_modules/@medplum/fhir-router" ]; then
	medplum=$here/fhir/testdata/medplum
fi
exec "$dir/serveload" -assay "$bin" -runs "${RUNS:-100}" -requests "${REQUESTS:-200}" -patients "${PATIENTS:-10000}" ${medplum:+-medplum "$medplum"}
