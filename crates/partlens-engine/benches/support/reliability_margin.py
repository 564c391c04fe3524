#!/usr/bin/env python3
"""A chance of being the same part from a result's score and its margin over the search's other
results, measured offline: the whole margin not kept, the margin clipped at zero kept (docs/PERFORMANCE.md,
"Scores that hold their promise").

The app's curve maps a result's score to a chance (`reliability.rs` fits it). Here the curve is
fitted the same way (`reliability.rs`'s `fit`: pool-adjacent-violators, blocks of at least 12,
anchors from (0, 0)) on `score + beta × margin`, the margin being the result's score less the best
score of the search's other results of the same kind (positive for the first, negative for the
rest), for the model results among the first ten of each search by a photograph or a sketch of a
model. For each beta: the log loss on the tuning half (what beta is chosen by) and on the held-out
half, the held-out reliability table, and what the curve says of the same searches with the part
and its twins taken out of the library (every result is then another part). With `sizes`, the
held-out photographs searched in smaller libraries (models drawn at random, five draws a size, the
part kept or taken out): how many results each curve labels "very similar" (90 % or more), right
and wrong. With `clipped`, a margin counts only below zero (`min(margin, 0)`): a result's
shortfall from its search's best lowers its chance, but the first result is not raised for
standing out, which is what grows as the library shrinks. The app reads picture → model's curve
at the clipped margin with beta 16 (`BELOW_BEST_WEIGHT`), and `reliability.rs` fits and prints it.

    cargo bench -p partlens-engine --bench corpus_ranking -- photos=2 sketches=2 dump=/tmp/c.json
    python3 reliability_margin.py /tmp/c.json [photo|sketch] [0,4,16]
    python3 reliability_margin.py /tmp/c.json sizes [16]
    python3 reliability_margin.py /tmp/c.json photo 0,8,16 clipped
"""
import json
import math
import random
import sys

SHOWN = 10
MIN_BLOCK = 12
HIGHEST_CHANCE = 0.99
# Whether a margin counts only below zero (`clipped` on the command line).
CLIPPED = False
BANDS = [(0.0, "< 30 %"), (0.3, "30–50 %"), (0.5, "50–70 %"), (0.7, "70–90 %"), (0.9, "≥ 90 %")]


def shown_results(dump, kind, part_absent):
    """(half, score, margin, same part) of the model results among each search's first ten."""
    files = dump["files"]
    drawing = [f["format"] in ("dxf", "pdf") for f in files]
    if kind == "photo":
        searches = [(photo["model"], photo["candidates"]) for photo in dump["photos"]]
    else:
        searches = [(sketch["drawn"], sketch["candidates"]) for sketch in dump["sketches"]
                    if not drawing[sketch["drawn"]]]
    out = []
    for query, candidates in searches:
        file = files[query]
        same = lambda c: c == query or bool(file["twin"] and files[c]["twin"] == file["twin"])
        if part_absent:
            candidates = [(c, s) for c, s in candidates if not same(c)]
        first = sorted(candidates, key=lambda cs: (-cs[1], cs[0]))[:SHOWN]
        models = [(c, s) for c, s in first if not drawing[c]]
        for c, s in models:
            others = [other for c2, other in models if c2 != c]
            margin = margin_of(s, others)
            out.append((file["half"], s, margin, same(c)))
    return out


def margin_of(score, others):
    """The result's score less the best of the other results' (0 alone), clipped at 0 when asked."""
    margin = score - max(others) if others else 0.0
    return min(margin, 0.0) if CLIPPED else margin


def fit(points):
    """`reliability.rs`'s fit of (feature, same part) points."""
    blocks = []
    for x, y in sorted(points):
        blocks.append([x, float(y), 1])
        while len(blocks) > 1:
            last, before = blocks[-1], blocks[-2]
            if before[1] / before[2] >= last[1] / last[2] or before[2] < MIN_BLOCK:
                blocks.pop()
                blocks[-1] = [a + b for a, b in zip(blocks[-1], last)]
            else:
                break
    if len(blocks) > 1 and blocks[-1][2] < MIN_BLOCK:
        last = blocks.pop()
        blocks[-1] = [a + b for a, b in zip(blocks[-1], last)]
    anchors = [(0.0, 0.0)]
    for total, same, count in blocks:
        anchor = (total / count, min(same / count, HIGHEST_CHANCE))
        if anchor[0] > anchors[-1][0]:
            anchors.append(anchor)
    return anchors


def chance(anchors, x):
    """Straight lines between anchors, 0 below the first, flat after the last."""
    x = max(x, 0.0)
    for (x0, y0), (x1, y1) in zip(anchors, anchors[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return anchors[-1][1]


def log_loss(results, feature, anchors):
    total = 0.0
    for result in results:
        p = min(max(chance(anchors, feature(result)), 1e-3), 1 - 1e-3)
        total -= math.log(p if result[3] else 1 - p)
    return total / len(results)


def table(results, feature, anchors):
    cells = []
    for band, (low, name) in enumerate(BANDS):
        high = BANDS[band + 1][0] if band + 1 < len(BANDS) else math.inf
        kept = [(chance(anchors, feature(r)), r[3]) for r in results]
        kept = [(c, same) for c, same in kept if low <= c < high]
        if not kept:
            cells.append("%s: 0" % name)
            continue
        label = sum(c for c, _ in kept) / len(kept)
        share = sum(same for _, same in kept) / len(kept)
        cells.append("%s: %d, label %.1f %%, same %.1f %% %s" % (
            name, len(kept), 100 * label, 100 * share, "yes" if abs(share - label) <= 0.05 else "no"))
    return " | ".join(cells)


def very_similar_by_library_size(dump, beta):
    """Held-out photographs searched among `size` random models (and their part, when kept): the
    results labelled 90 % or more under the score's curve and under the margin's, right / wrong."""
    files = dump["files"]
    drawing = [f["format"] in ("dxf", "pdf") for f in files]
    tuning = [r for r in shown_results(dump, "photo", False) if r[0] == "tuning half"]
    curves = {b: fit([(r[1] + b * r[2], r[3]) for r in tuning]) for b in (0.0, beta)}
    models = [k for k in range(len(files)) if not drawing[k]]
    for size in (5, 10, 25, 50, None):
        for kept in (True, False):
            counts = {b: [0, 0] for b in curves}
            for draw in range(5):
                rng = random.Random(draw)
                for photo in dump["photos"]:
                    query, file = photo["model"], files[photo["model"]]
                    if file["half"] != "held-out half":
                        continue
                    same = lambda c: c == query or bool(file["twin"] and files[c]["twin"] == file["twin"])
                    others = [c for c in models if not same(c)]
                    library = set(others if size is None else rng.sample(others, size))
                    if kept:
                        library.add(query)
                    first = sorted(((c, s) for c, s in photo["candidates"] if c in library),
                                   key=lambda cs: (-cs[1], cs[0]))[:SHOWN]
                    for c, s in first:
                        others = [other for c2, other in first if c2 != c]
                        margin = margin_of(s, others)
                        for b, anchors in curves.items():
                            if chance(anchors, s + b * margin) >= 0.9:
                                counts[b][0 if same(c) else 1] += 1
            print("%s other models, the part %s: " % (size or "all", "kept" if kept else "taken out")
                  + ", ".join("beta %g: very similar %d right, %d wrong" % (b, *n)
                              for b, n in counts.items()))


def main():
    global CLIPPED
    CLIPPED = "clipped" in sys.argv[1:]
    sys.argv = [arg for arg in sys.argv if arg != "clipped"]
    dump = json.load(open(sys.argv[1]))
    kind = sys.argv[2] if len(sys.argv) > 2 else "photo"
    if kind == "sizes":
        very_similar_by_library_size(dump, float(sys.argv[3]) if len(sys.argv) > 3 else 16.0)
        return
    betas = [float(b) for b in (sys.argv[3] if len(sys.argv) > 3 else "0,1,2,4,8,16,32").split(",")]
    present = shown_results(dump, kind, part_absent=False)
    absent = [r for r in shown_results(dump, kind, part_absent=True) if r[0] == "held-out half"]
    tuning = [r for r in present if r[0] == "tuning half"]
    held_out = [r for r in present if r[0] == "held-out half"]
    print("%s: tuning %d results, %d same part; held out %d, %d" % (
        kind, len(tuning), sum(r[3] for r in tuning), len(held_out), sum(r[3] for r in held_out)))
    for beta in betas:
        feature = lambda r, beta=beta: r[1] + beta * r[2]
        anchors = fit([(feature(r), r[3]) for r in tuning])
        labels = [chance(anchors, feature(r)) for r in absent]
        print("beta %g: log loss tuning %.4f, held out %.4f; anchors %s" % (
            beta, log_loss(tuning, feature, anchors), log_loss(held_out, feature, anchors),
            ", ".join("(%.3f, %.3f)" % anchor for anchor in anchors)))
        print("  held out: " + table(held_out, feature, anchors))
        print("  held out, the part taken out of the library: %d results, labelled ≥ 50 %%: %d, "
              "≥ 90 %%: %d" % (len(labels), sum(c >= 0.5 for c in labels),
                               sum(c >= 0.9 for c in labels)))


if __name__ == "__main__":
    main()
