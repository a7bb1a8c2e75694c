#!/usr/bin/env bash
# Refresh the vendored axe-core: install the pinned version from the npm registry into a
# temporary folder, check axe.min.js against the digest axe-core publishes for that version
# (its sri-history.json) and against the pin below, and copy it here with its licence.
# Usage: tests/browser/axe-core/fetch.sh   (needs npm and the npm registry)
set -euo pipefail
VERSION=4.14.1
SRI=sha256-KTSJmUUM3yhJqOcLeRL8LahahJ2jnA0NU5T1HUqe2Vw=
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
npm install --silent --no-audit --no-fund --prefix "$tmp" "axe-core@$VERSION"
pkg="$tmp/node_modules/axe-core"
actual="sha256-$(openssl dgst -sha256 -binary "$pkg/axe.min.js" | base64)"
published="$(node -e "console.log(require('$pkg/sri-history.json')['$VERSION']['axe.min.js'])")"
if [ "$actual" != "$SRI" ] || [ "$actual" != "$published" ]; then
  echo "axe.min.js $VERSION: digest $actual; pinned $SRI; published $published" >&2
  exit 1
fi
cp "$pkg/axe.min.js" "$pkg/LICENSE" "$here/"
echo "axe-core $VERSION copied to $here ($actual)"
