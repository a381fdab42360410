#!/usr/bin/env bash
# `trellis kicad-plugin install --to DIR` puts the plugin's files in
# DIR/trellis_route and links the trellis that ran it as bin/trellis.
set -eu
trellis=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$trellis" kicad-plugin install --to "$scratch/plugins"
for file in __init__.py plugin.py routing.py; do
  test -f "$scratch/plugins/trellis_route/$file" || { echo "FAIL: $file missing"; exit 1; }
done
test "$(readlink -f "$scratch/plugins/trellis_route/bin/trellis")" = "$(readlink -f "$trellis")" \
  || { echo "FAIL: bin/trellis does not link to $trellis"; exit 1; }
"$scratch/plugins/trellis_route/bin/trellis" --version
HOME="$scratch/home" "$trellis" kicad-plugin install
test -f "$scratch/home/.local/share/kicad/6.0/scripting/plugins/trellis_route/routing.py" \
  || { echo "FAIL: the default folder was not used"; exit 1; }
echo ok
