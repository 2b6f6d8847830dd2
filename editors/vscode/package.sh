#!/usr/bin/env bash
# Build warcodex-VERSION.vsix: regenerate the TextMate grammar from the Lark grammar (needs the
# project installed in ../../.venv), install the client library, and package with vsce.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
python="${PYTHON:-$here/../../.venv/bin/python}"
"$python" -m warcodex.lsp.textmate > syntaxes/warcodex.tmLanguage.json.tmp
mv syntaxes/warcodex.tmLanguage.json.tmp syntaxes/warcodex.tmLanguage.json
npm install --no-audit --no-fund --omit=dev
npx --yes @vscode/vsce package --allow-missing-repository --skip-license -o "$here/warcodex.vsix"
echo "built $here/warcodex.vsix (install: code --install-extension warcodex.vsix)"
