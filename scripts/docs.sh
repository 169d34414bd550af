#!/usr/bin/env bash
# Builds AsyncRealm's DocC archive (.build/docs/AsyncRealm.doccarchive) from the library's
# symbol graph and the catalog Sources/AsyncRealm/AsyncRealm.docc, whose articles are the guides
# in Docs/ (symbolic links). Fails on any DocC warning, and on any public symbol without a
# documentation comment or without the `- Parameters:`, `- Returns:` and `- Throws:` it needs
# (scripts/doc-coverage.py). The test command runs it.
#
# No SwiftPM plugin can be fetched here, so the symbol graph is extracted from the debug
# build's module with swift-symbolgraph-extract (what `swift build -Xswiftc -emit-symbol-graph`
# writes, without rebuilding the library with other flags), then `docc convert` builds the
# archive.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/docs
rm -rf "$out/symbol-graphs" "$out/AsyncRealm.docc" "$out/AsyncRealm.doccarchive"
mkdir -p "$out/symbol-graphs"
swift build --target AsyncRealm
module_maps=()
for library in Sources/C*/module.modulemap; do module_maps+=(-Xcc "-fmodule-map-file=$library"); done
swift symbolgraph-extract -module-name AsyncRealm -I .build/debug/Modules \
    -target "$(uname -m)-unknown-linux-gnu" -minimum-access-level public \
    -output-dir "$out/symbol-graphs" "${module_maps[@]}"
python3 scripts/doc-coverage.py "$out/symbol-graphs"

# The catalog with its articles copied (not linked), and the guides' links to one another,
# `[Models](Models.md)` on GitHub, made DocC links to the articles.
cp -RL Sources/AsyncRealm/AsyncRealm.docc "$out/AsyncRealm.docc"
articles=$(cd "$out/AsyncRealm.docc" && ls *.md | sed 's/\.md$//' | paste -sd'|')
sed -i -E "s/\]\(($articles)\.md\)/](doc:\1)/g" "$out"/AsyncRealm.docc/*.md
docc convert "$out/AsyncRealm.docc" --additional-symbol-graph-dir "$out/symbol-graphs" \
    --fallback-display-name AsyncRealm --fallback-bundle-identifier org.asyncrealm.AsyncRealm \
    --output-path "$out/AsyncRealm.doccarchive" --warnings-as-errors
echo "docs: $out/AsyncRealm.doccarchive"
