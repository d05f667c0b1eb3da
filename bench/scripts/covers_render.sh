#!/usr/bin/env bash
# Render time and peak memory of `covers render` (release build) for the video formats (the DVD
# wrap and the largest, the VHS slipcover) and a J-card: the preview PNG, the 600 DPI PNG and the
# print PDF, one at a time (median of 5) and two at once. Whole-process figures from GNU time.
# Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet --release --bin covers
BIN=target/release/covers
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
echo '{"format":"dvd-cover","content":{"type":"movie","query":"Metropolis 1927"},"decals":[{"id":"stickers/new","x":88,"y":12,"width":12}],"texts":[{"text":"Restored","x":75,"y":92,"size":3}]}' > "$WORK/dvd.json"
echo '{"format":"slipcover","content":{"type":"movie","query":"Nosferatu 1922"},"texts":[{"text":"Uncut","x":80,"y":92,"size":3}]}' > "$WORK/slipcover.json"
echo '{"format":"jcard","content":{"type":"album","query":"Midnight Static"},"decals":[{"id":"badges/stereo","x":80,"y":90,"width":20}]}' > "$WORK/jcard.json"
one() { /usr/bin/time -f "%e %M" "$BIN" render "$WORK/$1.json" --output "$2" -o "$WORK/$1-$2.out" 2>&1 >/dev/null | tail -1; }
median() { sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }
echo "| design | output | seconds (median of 5) | peak RSS MiB | two at once: seconds (slower), peak MiB each |"
echo "|---|---|---:|---:|---:|"
for d in dvd slipcover jcard; do
  for o in preview png pdf; do
    runs=$(for _ in 1 2 3 4 5; do one "$d" "$o"; done)
    secs=$(awk '{print $1}' <<<"$runs" | median); mem=$(awk '{print $2}' <<<"$runs" | median)
    both=$( (one "$d" "$o" & one "$d" "$o" & wait) )
    bsec=$(awk '{print $1}' <<<"$both" | sort -n | tail -1); bmem=$(awk '{print $2}' <<<"$both" | sort -n | tail -1)
    echo "| $d | $o | $secs | $((mem / 1024)) | $bsec s, $((bmem / 1024)) |"
  done
done
