#!/usr/bin/env python3
"""Blends of the score components `corpus_ranking -- dump=FILE` writes, counted as the bench counts
(twins, kinds of part, drawings first), on the tuning and the held-out half: to choose a blend's
weights on the tuning half offline, then check the held-out half once. Standard library only.

    python3 corpus_sweep.py /tmp/components.json            # today's score, then the sweep
"""
import itertools
import json
import math
import sys

NEAR_WEIGHT, NEAR_DIFFERENCE, FAR_WEIGHT, FAR_DIFFERENCE = 1.0, 0.1, 0.05, 4.0


def size_difference(a, a_unitless, b, b_unitless):
    ratios = [a[k] / b[k] for k in range(3)]
    mean_log = lambda rs: sum(abs(math.log(r)) for r in rs) / 3
    if a_unitless or b_unitless:
        for factor in (25.4, 1000.0):
            for ratio in (factor, 1 / factor):
                if all(abs(r / ratio - 1) <= 0.02 for r in ratios):
                    return mean_log([r / ratio for r in ratios])
    return mean_log(ratios)


def blend(visual, difference):
    return max(0.0, visual - NEAR_WEIGHT * min(difference, NEAR_DIFFERENCE)
               - FAR_WEIGHT * min(difference, FAR_DIFFERENCE))


class Corpus:
    def __init__(self, path):
        dump = json.load(open(path))
        self.names = dump["components"]
        self.files = dump["files"]
        self.searches = dump["searches"]
        at = {name: k for k, name in enumerate(self.names)}
        self.at = at
        self.drawing = [f["format"] in ("dxf", "pdf") for f in self.files]
        self.size = {}
        for search in self.searches:
            q = search["query"]
            for c, _ in search["candidates"]:
                a, b = self.files[q]["extents"], self.files[c]["extents"]
                if a and b:
                    self.size[(q, c)] = size_difference(a, self.files[q]["unitless"], b,
                                                        self.files[c]["unitless"])

    def rows(self, score, show_misses=False):
        """score(query file, candidate file, components) -> visual score; returns rows per half."""
        rows = {}
        for search in self.searches:
            q = search["query"]
            file = self.files[q]
            half = file["half"]
            r = rows.setdefault(half, dict(twin=[0, 0], kind=[0, 0], three=0, drawing=[0, 0],
                                           misses=[]))
            ranked = []
            for c, components in search["candidates"]:
                visual = score(file, self.files[c], components)
                d = self.size.get((q, c))
                ranked.append((blend(visual, d) if d is not None else visual, -c, c))
            ranked.sort(reverse=True)
            order = [c for _, _, c in ranked]
            twin = lambda c: file["twin"] != "" and self.files[c]["twin"] == file["twin"]
            fam = lambda c: file["family"] != "" and self.files[c]["family"] == file["family"]
            has_twin = any(twin(c) for c in order)
            family = [c for c in order if not twin(c) and fam(c)]
            if has_twin:
                r["twin"][1] += 1
                r["twin"][0] += twin(order[0])
                if not twin(order[0]):
                    r["misses"].append("twin %s -> %s" % (name(file), name(self.files[order[0]])))
            if not has_twin and not family:
                continue
            others = [c for c in order if not twin(c)]
            r["drawing"][1] += 1
            r["drawing"][0] += self.drawing[others[0]]
            if not family or file["family_kind"] != "kind":
                continue
            r["kind"][1] += 1
            r["kind"][0] += fam(others[0])
            models = [c for c in others if not self.drawing[c]]
            r.setdefault("models", [0, 0])
            r["models"][1] += 1
            r["models"][0] += fam(models[0])
            r.setdefault("models3", 0)
            r["models3"] += sum(fam(c) for c in models[:3])
            r["three"] += sum(fam(c) for c in others[:3])
            if not fam(others[0]):
                r["misses"].append("kind %s -> %s (family at %d)" % (
                    name(file), name(self.files[others[0]]), 1 + [fam(c) for c in others].index(True)))
        return rows


def name(file):
    return file["path"].rsplit("/", 1)[-1]


def summary(rows):
    out = []
    for half in ("tuning half", "held-out half"):
        r = rows[half]
        out.append("%s: twins %d/%d kind %d/%d P@3 %.0f%% (models alone %d, P@3 %.0f%%) drawing-first %d/%d" % (
            half[:4], r["twin"][0], r["twin"][1], r["kind"][0], r["kind"][1],
            100 * r["three"] / max(1, 3 * r["kind"][1]), r.get("models", [0])[0],
            100 * r.get("models3", 0) / max(1, 3 * r["kind"][1]), r["drawing"][0], r["drawing"][1]))
    return " | ".join(out)


def today(corpus):
    at = corpus.at["score"]
    return lambda q, c, comp: comp[at]


def parts_score(corpus, drawing_penalty=0.0, ends=0.0, elongated=1.5, holes=0.0, outline=0.0,
                flat_z=None):
    """The views and D2 as blended before issue 49 (0.75 / 0.25), then the parts' terms."""
    at = corpus.at
    def score(q, c, comp):
        views, d2 = comp[at["views"]], comp[at["d2"]]
        if d2 is None:
            # A candidate without a mesh (a picture, a drawing) for a model searched by.
            if q.get("elongation") is not None and c.get("drawing"):
                return max(0.0, views - drawing_penalty)
            return views
        s = 0.75 * views + 0.25 * d2
        if ends and comp[at["ends"]] is not None and q["elongation"] >= elongated:
            s -= ends * (1 - comp[at["ends"]])
        if holes:
            for axis in ("holes_x", "holes_y", "holes_z"):
                if comp[at[axis]] is not None:
                    s -= holes / 3 * (1 - comp[at[axis]])
        if outline:
            s -= outline * (1 - comp[at["outline"]])
        return max(0.0, s)
    return score


if __name__ == "__main__":
    corpus = Corpus(sys.argv[1])
    rows = corpus.rows(today(corpus))
    print("today:", summary(rows))
    for half in ("tuning half", "held-out half"):
        for miss in rows[half]["misses"]:
            print("  ", half, miss)
