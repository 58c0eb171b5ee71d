"""A small multi-language project for the repository map: Python, TypeScript, JavaScript and Go files that use
each other's definitions a known number of times."""

from __future__ import annotations

from pathlib import Path

FILES = {
    "store/models.py": (
        "class OrderBook:\n"
        "    def add_order(self, order):\n"
        "        return order\n\n\n"
        "def load_orders(path):\n"
        "    return OrderBook()\n"
    ),
    "store/report.py": (
        "from store.models import OrderBook, load_orders\n\n\n"
        "def weekly_report(book: OrderBook) -> str:\n"
        "    return str(load_orders('x'))\n"
    ),
    "store/cli.py": (
        "from store.models import OrderBook\n\n\ndef main() -> None:\n    book = OrderBook()\n    book.add_order(1)\n"
    ),
    "web/api.ts": (
        "import { OrderBook } from './types';\n"
        "export interface PriceQuote { amount: number }\n"
        "export function fetchQuote(book: OrderBook): PriceQuote {\n"
        "  return { amount: 1 };\n"
        "}\n"
    ),
    "web/view.js": (
        "import { fetchQuote } from './api';\n"
        "export class QuoteView {\n"
        "  render() { return fetchQuote(new OrderBook()); }\n"
        "}\n"
    ),
    "service/server.go": (
        "package service\n\n"
        "type OrderServer struct { book *OrderBook }\n\n"
        "func (s *OrderServer) Serve() error { return nil }\n\n"
        "func NewOrderServer() *OrderServer { return &OrderServer{} }\n"
    ),
    "service/main.go": "package service\n\nfunc run() { NewOrderServer().Serve() }\n",
}
"""``OrderBook`` is used by five other files, more than any other definition; ``fetchQuote`` by one."""

SECRET = "vault/keys.py"
SECRET_DEFINITION = "rotate_master_key"


def write_project(root: Path, *, secret: bool = False, git: bool = True) -> Path:
    """The files above under ``root`` (and ``.git`` so it is a repository); ``secret`` adds a file of keys."""
    for relative, content in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    if secret:
        (root / "vault").mkdir(exist_ok=True)
        (root / SECRET).write_text(
            f"def {SECRET_DEFINITION}(book: OrderBook):\n    return OrderBook()\n\n\ndef uses():\n    {SECRET_DEFINITION}(1)\n"
        )
    if git:
        (root / ".git").mkdir(exist_ok=True)
    return root
