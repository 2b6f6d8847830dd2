"""The Warcodex language server (`warcodex lsp`): editor support for .wcx rules over LSP."""
