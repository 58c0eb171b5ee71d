"""What web_fetch's extraction costs per page: trafilatura for HTML, pypdf for PDF, text as it is, then rendering.

Pages: the suite's fixture pages (tests/fixtures/research_pages), a long HTML page made of many copies of
their articles, a PDF of a few pages and a 1 MB text log. For each: the median milliseconds per page of
``extract_now`` (what web_fetch runs in a thread) plus ``render_page`` (the header, the wrapper and the
first 20,000 characters), against a baseline measured in the same run: only parsing the body (lxml's tree
for HTML, opening the PDF, decoding the text), the part no extractor can skip.

Usage: python benchmarks/web_extract.py [RUNS]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.research.extract import PageKind, extract_now
from engine.tools.web.options import PAGE_CHARS
from engine.tools.web.page import PageText, render_page
from tests.support.search_server import PAGES_DIR, pdf_with_text

RUNS = 15


def pages() -> list[tuple[str, PageKind, bytes]]:
    """(name, kind, body) of every page measured."""
    small = (PAGES_DIR / "solar-sails.html").read_bytes()
    medium = (PAGES_DIR / "sourdough.html").read_bytes()
    article = small.split(b"<article", 1)[1].split(b"</article>", 1)[0]
    long_html = b"<html><head><title>Long</title></head><body><article" + article * 60 + b"</article></body></html>"
    pdf = _pdf_pages(6)
    log = "\n".join(f"2026-12-05 12:00:{n % 60:02d} INFO request {n} served in {n % 97} ms" for n in range(20_000))
    return [
        ("solar-sails.html", "html", small),
        ("sourdough.html", "html", medium),
        ("long.html (60 articles)", "html", long_html),
        ("briefing.pdf (6 pages)", "pdf", pdf),
        ("server.log (text)", "text", log.encode()),
    ]


def _pdf_pages(count: int) -> bytes:
    from io import BytesIO

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for number in range(count):
        reader = PdfReader(BytesIO(pdf_with_text(f"Page {number}: Lumen-2 reached 40 km/s on sunlight alone.")))
        writer.add_page(reader.pages[0])
    out = BytesIO()
    writer.write(out)
    return out.getvalue()


def parse_only(kind: PageKind, body: bytes) -> None:
    """The baseline: the body parsed, nothing extracted."""
    if kind == "html":
        import trafilatura

        trafilatura.load_html(body)
    elif kind == "pdf":
        from io import BytesIO

        from pypdf import PdfReader

        len(PdfReader(BytesIO(body)).pages)
    else:
        body.decode("utf-8")


def web_fetch_work(kind: PageKind, body: bytes) -> None:
    """What web_fetch does with a downloaded body: extract it, then render its first result."""
    url = "https://example.org/page"
    extracted = extract_now(body, kind, url=url)
    page = PageText(
        url=url,
        final_url=url,
        content_type=kind,
        size_bytes=len(body),
        title=extracted.title,
        text=extracted.text,
    )
    render_page(page, offset=0, limit=PAGE_CHARS, prompt=None, cached=False)


def median_ms(work: Callable[[], None], runs: int) -> float:
    work()  # warm: imports and caches are not what a page costs
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    print(f"web_fetch extraction, median of {runs} runs per page")
    print(f"{'page':<26} {'size':>9} {'baseline ms':>12} {'web_fetch ms':>13} {'ratio':>7}")
    total_base = total_fetch = 0.0
    for name, kind, body in pages():
        base = median_ms(lambda kind=kind, body=body: parse_only(kind, body), runs)
        work = median_ms(lambda kind=kind, body=body: web_fetch_work(kind, body), runs)
        total_base, total_fetch = total_base + base, total_fetch + work
        print(f"{name:<26} {len(body) / 1000:>7.1f}KB {base:>12.2f} {work:>13.2f} {work / base:>6.1f}x")
    count = len(pages())
    print(f"{'mean per page':<26} {'':>9} {total_base / count:>12.2f} {total_fetch / count:>13.2f}")


if __name__ == "__main__":
    main()
