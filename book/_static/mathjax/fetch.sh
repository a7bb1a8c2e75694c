#!/usr/bin/env bash
# Refresh the bundled MathJax from the npm registry: mathjax@4.1.3 and the font it uses,
# @mathjax/mathjax-newcm-font@4.1.3, copied here unchanged. Only the files the
# book's pages load are kept (README.md lists them). Usage: book/_static/mathjax/fetch.sh
set -euo pipefail
VERSION=4.1.3
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
npm install --silent --no-audit --no-fund --prefix "$tmp" "mathjax@$VERSION" "@mathjax/mathjax-newcm-font@$VERSION"
src="$tmp/node_modules/mathjax"
font="$tmp/node_modules/@mathjax/mathjax-newcm-font"
rm -rf "$here/input" "$here/output" "$here/a11y" "$here/ui" "$here/sre" "$here/fonts"
cp "$src/tex-mml-chtml.js" "$src/LICENSE" "$here/"
cp -r "$src/input" "$src/output" "$src/a11y" "$src/ui" "$here/"
mkdir -p "$here/sre/mathmaps" "$here/fonts/mathjax-newcm-font"
cp "$src/sre/speech-worker.js" "$here/sre/"
cp "$src/sre/mathmaps/base.json" "$src/sre/mathmaps/en.json" "$src/sre/mathmaps/nemeth.json" "$here/sre/mathmaps/"
cp -r "$font/chtml" "$font/chtml.js" "$font/package.json" "$here/fonts/mathjax-newcm-font/"
echo "mathjax $VERSION and $(node -p "require('$font/package.json').version") of its font copied to $here"
