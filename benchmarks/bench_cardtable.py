"""How long the card table's requests take on a studio-sized deck (issue 15: "validates as you
edit, fast enough on a studio-sized deck; say the figure").

A synthetic deck (``sorteio.synthetic.synthetic_deck``: CARDS common cards, one mode per 20,
6 actors, 8 meters) written as an indented deck file; then, through the one request handler both
bridges use (what the panel sends):

- ``deck_table``: every row, in the panel's pages of 500;
- ``deck_edit`` of one cell: read the file, apply, write it, validate it (``validate_ms``: the
  validation alone, which the reply reports);
- the reply sizes (the socket bridge carries at most 1 MiB a frame).

Each figure is the median of ``--repeat`` runs. Print ``uptime`` beside it (shared machine).

Usage: python benchmarks/bench_cardtable.py [--cards 2000] [--repeat 7]
"""

import argparse
import json
import os
import statistics
import tempfile
import time

from sorteio.bridge.handler import RequestHandler
from sorteio.synthetic import synthetic_deck


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    deck = synthetic_deck(cards=args.cards, modes=max(1, args.cards // 20))
    data = json.loads(deck.model_dump_json(by_alias=True, exclude_none=True))
    for card in data["cartas"]:  # a studio deck has texts: ~150 characters a card
        card["texto"] = "Um texto de carta com o tamanho de um texto de verdade. " * 3
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "estudio.sorteio.json")
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    handler = RequestHandler()

    def call(method, **params):
        reply = handler.handle({"id": 1, "method": method, "params": params})
        assert reply["ok"], reply
        return reply["result"]

    table, edit, validate, sizes = [], [], [], {}
    for i in range(args.repeat):
        started = time.perf_counter()
        offset, total = 0, 1
        while offset < total:
            page = call("deck_table", deck=path, offset=offset, limit=500)
            sizes["deck_table page"] = max(sizes.get("deck_table page", 0),
                                           len(json.dumps(page, ensure_ascii=False)))
            total, offset = page["total"], offset + len(page["rows"])
        table.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = call("deck_edit", deck=path, edits=[
            {"op": "set", "index": 0, "card": data["cartas"][0]["id"], "column": "titulo",
             "text": f"Carta editada {i}"}])
        edit.append(time.perf_counter() - started)
        validate.append(result["validate_ms"] / 1000)
        sizes["deck_edit reply"] = len(json.dumps(result, ensure_ascii=False))
    print(f"deck: {len(data['cartas'])} cards, {os.path.getsize(path) / 1e6:.2f} MB file; "
          f"median of {args.repeat}")
    print(f"deck_table, all rows (pages of 500): {statistics.median(table) * 1000:.0f} ms")
    print(f"deck_edit of one cell (read, write, validate): {statistics.median(edit) * 1000:.0f} ms"
          f", of which validate {statistics.median(validate) * 1000:.0f} ms")
    for name, size in sizes.items():
        print(f"largest {name}: {size / 1024:.0f} KiB")
    print("load average:", os.getloadavg())


if __name__ == "__main__":
    main()
