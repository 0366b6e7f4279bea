#!/usr/bin/env bash
# Open a `gpusim report` page in headless Chromium, save a screenshot and
# check the page rendered: the DOM Chromium built has every section and
# the expected number of charts, and the screenshot is not blank.
#
# Usage: scripts/report_screenshot.sh [REPORT.html [SHOT.png]]
#   Without REPORT.html: runs target/release/gpusim on kernels/bfs.ptx
#   (with --sample 2000) and kernels/saxpy.ptx and writes the report to
#   target/report-check/report.html first.
# Needs: chromium (Debian package `chromium`; or set CHROMIUM=/path) and
# python3. Installs nothing. Exit status 0 when the page looks right.
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
    echo "report_screenshot: no chromium (apt-get install -y chromium, or set CHROMIUM)" >&2
    exit 2
fi
GPUSIM=${GPUSIM:-target/release/gpusim}
OUT_DIR=target/report-check
mkdir -p "$OUT_DIR"

REPORT=${1:-}
SHOT=${2:-$OUT_DIR/report.png}
RUNS=0
if [ -z "$REPORT" ]; then
    [ -x "$GPUSIM" ] || { echo "report_screenshot: build first (cargo build --release)" >&2; exit 2; }
    "$GPUSIM" run kernels/bfs.ptx --sample 2000 --json "$OUT_DIR/bfs.json" >/dev/null
    "$GPUSIM" run kernels/saxpy.ptx --json "$OUT_DIR/saxpy.json" >/dev/null
    REPORT=$OUT_DIR/report.html
    "$GPUSIM" report "$OUT_DIR/bfs.json" "$OUT_DIR/saxpy.json" -o "$REPORT"
    RUNS=2
fi
URL="file://$(cd "$(dirname "$REPORT")" && pwd)/$(basename "$REPORT")"

# --no-sandbox: CI containers run as root, where Chromium's sandbox refuses to start.
FLAGS=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
       --disable-dev-shm-usage --window-size=1280,3000)

DOM=$OUT_DIR/dom.html
"$CHROMIUM" "${FLAGS[@]}" --dump-dom "$URL" >"$DOM" 2>"$OUT_DIR/chromium-dom.log"
fail=0
for id in summary stalls time-series hot-spots; do
    if ! grep -q "id=\"$id\"" "$DOM"; then
        echo "report_screenshot: the rendered DOM has no section #$id" >&2
        fail=1
    fi
done
svgs=$( { grep -o '<svg' "$DOM" || true; } | wc -l)
tables=$( { grep -o '<table' "$DOM" || true; } | wc -l)
echo "report_screenshot: DOM of $REPORT: $svgs svg, $tables tables"
if [ "$RUNS" = 2 ] && [ "$svgs" -lt 3 ]; then
    # 2 runs: stalls per run, bfs's per-launch stalls, bfs's time series.
    echo "report_screenshot: expected at least 3 charts, found $svgs" >&2
    fail=1
fi

"$CHROMIUM" "${FLAGS[@]}" --screenshot="$SHOT" "$URL" 2>"$OUT_DIR/chromium-shot.log" >/dev/null
[ -s "$SHOT" ] || { echo "report_screenshot: no screenshot written (see $OUT_DIR/chromium-shot.log)" >&2; exit 1; }
python3 scripts/png_check.py "$SHOT" || fail=1
[ "$fail" = 0 ] && echo "report_screenshot: ok ($SHOT)"
exit "$fail"
