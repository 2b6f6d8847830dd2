"""Headless Chromium for the viewer's tests and screenshots: Debian's `chromium`, driven by
Playwright (the `playwright` package's driver, never a browser it downloads).

The flags keep Chromium off the network (this project's machines have none) and work as root:
--no-sandbox; --disable-background-networking and friends stop it calling home at start.
"""

from __future__ import annotations

import os
import shutil

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
REQUIRE = "WARCODEX_REQUIRE_BROWSER"  # set by .ci/run: a missing browser fails instead of skipping


def chromium_path() -> str | None:
    """The Chromium named by $CHROMIUM if it is set (only that one), else Debian's."""
    named = os.environ.get("CHROMIUM")
    candidates = [named] if named else ["/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")]
    return next((c for c in candidates if c and os.path.exists(c)), None)


def missing() -> str | None:
    """Why the browser cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if chromium_path() is None:
        named = os.environ.get("CHROMIUM")
        return f"no Chromium at {named} ($CHROMIUM)" if named else "no Chromium at /usr/bin/chromium (apt-get install chromium)"
    return None


def launch(playwright):
    """A headless Chromium from a started `sync_playwright()`."""
    return playwright.chromium.launch(executable_path=chromium_path(), args=list(FLAGS))
