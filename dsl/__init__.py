"""The Warcodex rules language: grammar, parser, AST, loader, checker, formatter, diagnostics."""
