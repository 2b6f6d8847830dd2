"""The aid as PDF, through WeasyPrint (imported only here, so the rest of Warcodex never loads it)."""

from __future__ import annotations

from pathlib import Path

from warcodex.outputs import write_atomic


def render_pdf(html: str, base_url: str | None = None):
    """Lay out the HTML; return the WeasyPrint document (its `pages` are the PDF pages)."""
    import logging
    import warnings

    with warnings.catch_warnings():  # "HarfBuzz-Subset will be required by future versions": fontTools serves
        warnings.simplefilter("ignore", DeprecationWarning)
        from weasyprint import HTML

    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    return HTML(string=html, base_url=base_url).render()


def pdf_bytes(html: str, base_url: str | None = None) -> tuple[bytes, int]:
    document = render_pdf(html, base_url)
    return document.write_pdf(), len(document.pages)


def write_pdf(html: str, path: Path, base_url: str | None = None) -> int:
    """Write the PDF atomically (a temporary file in the same folder, then a rename); return the
    number of pages."""
    data, pages = pdf_bytes(html, base_url)
    write_bytes_atomic(Path(path), data)
    return pages


def write_bytes_atomic(path: Path, data: bytes) -> None:
    write_atomic(path, data)
