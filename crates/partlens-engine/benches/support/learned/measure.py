#!/usr/bin/env python3
"""Learned features of rendered views, measured against the engine's hand-made descriptors on the
real-world corpus (issue 49): EfficientNet-Lite0's pooled ImageNet features (converted by
`convert_efficientnet_lite0.py`) of what `corpus_ranking -- learned=DIR` wrote (each model's
framed renderings from its 32 search-input directions, each drawing's framed page, each
photograph and each sketch framed), reduced and normalised, matched best view to best view, fused
with the engine's scores from `corpus_ranking -- photos=2 sketches=2 dump=FILE`, and counted as
the benches count, on the tuning half and the held-out half. Needs numpy and onnxruntime (pip; a measurement only:
the program would run the network with tract).

    python3 measure.py lite0.onnx DIR components.json [side]
"""
import json
import math
import os
import sys

import numpy as np
import onnxruntime
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from corpus_sweep import Corpus, blend, parts_score  # noqa: E402


def embed(session, paths, side):
    """Pooled features of grey pictures, shown as RGB at `side` pixels, 32 at a time."""
    out = []
    for start in range(0, len(paths), 32):
        batch = []
        for path in paths[start:start + 32]:
            grey = Image.open(path).convert("L").resize((side, side), Image.BILINEAR)
            array = np.asarray(grey, dtype=np.float32) / 255.0
            batch.append(np.stack([array] * 3))
        features, _ = session.run(None, {"image": np.stack(batch)})
        out.append(features)
    return np.concatenate(out)


def normalised(features, mean, projection):
    """Power-normalised, centred on the tuning half's mean, projected, L2-normalised."""
    x = np.sqrt(np.maximum(features, 0)) - mean
    if projection is not None:
        x = x @ projection
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-9)


def farthest_subset(directions, count):
    """`count` of the directions spread by farthest-point sampling from the first."""
    chosen = [0]
    while len(chosen) < count:
        best = max(range(len(directions)), key=lambda k: min(
            1 - np.dot(directions[k], directions[c]) for c in chosen))
        chosen.append(best)
    return chosen


def main():
    model_path, folder, components = sys.argv[1], sys.argv[2], sys.argv[3]
    side = int(sys.argv[4]) if len(sys.argv) > 4 else 128
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(model_path, options)
    corpus = Corpus(components)
    dump = json.load(open(components))
    directions = np.array(json.load(open(os.path.join(folder, "directions.json"))))
    photo_models = json.load(open(os.path.join(folder, "photos.json")))
    files = corpus.files
    models = [k for k, f in enumerate(files) if not corpus.drawing[k]
              and os.path.exists(os.path.join(folder, "m%d_0.png" % k))]
    drawings = [k for k, f in enumerate(files)
                if os.path.exists(os.path.join(folder, "d%d.png" % k))]
    sketches_path = os.path.join(folder, "sketches.json")
    sketch_count = len(json.load(open(sketches_path))) if os.path.exists(sketches_path) else 0
    cache = os.path.join(folder, "features-%d.npz" % side)
    if os.path.exists(cache):
        saved = np.load(cache)
        model_features, drawing_features, photo_features = saved["m"], saved["d"], saved["p"]
        sketch_features = saved["s"] if "s" in saved else None
    else:
        model_features = embed(session, [os.path.join(folder, "m%d_%d.png" % (k, v))
                                         for k in models for v in range(32)], side)
        model_features = model_features.reshape(len(models), 32, -1)
        drawing_features = embed(session, [os.path.join(folder, "d%d.png" % k) for k in drawings], side)
        photo_features = embed(session, [os.path.join(folder, "p%d.png" % k)
                                         for k in range(len(photo_models))], side)
        sketch_features = None
    if sketch_features is None or len(sketch_features) != sketch_count:
        sketch_features = embed(session, [os.path.join(folder, "s%d.png" % k)
                                          for k in range(sketch_count)], side)
        np.savez(cache, m=model_features, d=drawing_features, p=photo_features,
                 s=sketch_features)
    tuning = [i for i, k in enumerate(models) if files[k]["half"] == "tuning half"]
    mean = np.sqrt(np.maximum(model_features[tuning].reshape(-1, 1280), 0)).mean(axis=0)
    for dims in (None, 256):
        projection = None
        if dims:
            x = np.sqrt(np.maximum(model_features[tuning].reshape(-1, 1280), 0)) - mean
            _, _, vt = np.linalg.svd(x, full_matrices=False)
            projection = vt[:dims].T
        for count in (6, 12, 32):
            subset = farthest_subset(directions, count) if count < 32 else list(range(32))
            m = normalised(model_features[:, subset], mean, projection)
            d = normalised(drawing_features, mean, projection)
            p = normalised(photo_features, mean, projection)
            k = normalised(sketch_features, mean, projection) if sketch_count else None
            evaluate(corpus, dump, models, drawings, photo_models, m, d, p, k,
                     "dims %s, %d views" % (dims or 1280, count))


def evaluate(corpus, dump, models, drawings, photo_models, m, d, p, k, label):
    at_model = {k: i for i, k in enumerate(models)}
    at_drawing = {k: i for i, k in enumerate(drawings)}

    def learned(q, c):
        """A model searched by against a library file: best view of the candidate for each view
        of the query, averaged (a drawing: its one view)."""
        qi = at_model.get(q)
        if qi is None:
            return None
        if c in at_model:
            return float((m[qi] @ m[at_model[c]].T).max(axis=1).mean())
        if c in at_drawing:
            return float((m[qi] @ d[at_drawing[c]]).max())
        return None

    table = {}
    for search in corpus.searches:
        q = search["query"]
        for c, _ in search["candidates"]:
            table[(q, c)] = learned(q, c)
    base = parts_score(corpus, drawing_penalty=0.2, ends=0.8)
    for w in WEIGHTS:
        def score(qf, cf, comp, w=w):
            s = base(qf, cf, comp)
            value = table.get((files_index[id(qf)], files_index[id(cf)]))
            return s if value is None else s - w * (1 - value)
        files_index = {id(f): k for k, f in enumerate(corpus.files)}
        rows = corpus.rows(score)
        photo = photo_rows(corpus, dump, models, drawings, m, d, p, w)
        sketch = sketch_rows(corpus, dump, models, drawings, m, d, k, w) if k is not None else ""
        print(label, "w", w, summarise(rows), photo, sketch, flush=True)


WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 3.0)


def fused_orders(searches, query_key, models, drawings, m, d, pictures, w):
    """Each search's query (the file at `query_key`) and its files ranked with the learned
    similarity of its picture (`pictures`, in the searches' order) fused in."""
    at_model = {k: i for i, k in enumerate(models)}
    at_drawing = {k: i for i, k in enumerate(drawings)}
    for n, search in enumerate(searches):
        order = fused(search["candidates"], at_model, at_drawing, m, d, pictures[n], w)
        yield search[query_key], order


def photo_rows(corpus, dump, models, drawings, m, d, p, w):
    result = {}
    for model, order in fused_orders(dump["photos"], "model", models, drawings, m, d, p, w):
        _, in_five, kind_first = hits(corpus.files, model, order)
        r = result.setdefault(corpus.files[model]["half"][:4], [0, 0, 0, 0])
        r[1] += 1
        r[0] += in_five
        if kind_first is not None:
            r[3] += 1
            r[2] += kind_first
    return " photos " + " ".join("%s part5 %d/%d kind %d/%d" % (h, *r) for h, r in sorted(result.items()))


def hits(files, query, order):
    """Whether the part searched for (the file or its twin) is first and in the first five, and
    whether the first result is of its kind (None when no other file is of its `kind` family)."""
    file = files[query]
    part = lambda c: c == query or bool(file["twin"] and files[c]["twin"] == file["twin"])
    fam = lambda c: bool(file["family"] and files[c]["family"] == file["family"])
    kind_first = None
    if file["family_kind"] == "kind" and any(fam(c) and not part(c) for c in order):
        kind_first = fam(order[0])
    return part(order[0]), any(part(c) for c in order[:5]), kind_first


def fused(candidates, at_model, at_drawing, m, d, picture, w):
    """A picture's scored files with the learned similarity fused in (a model by its best view,
    a drawing by its one view), best first, ties by position."""
    ranked = []
    for c, s in candidates:
        if c in at_model:
            s = s - w * (1 - float((m[at_model[c]] @ picture).max()))
        elif c in at_drawing:
            s = s - w * (1 - float(d[at_drawing[c]] @ picture))
        ranked.append((s, -c, c))
    ranked.sort(reverse=True)
    return [c for _, _, c in ranked]


def sketch_rows(corpus, dump, models, drawings, m, d, k, w):
    """The sketch set's rows (`sketch_set.rs`): a sketch of a model finds its part first, in the
    first five, and the first result of its kind; a sketch of a drawing finds the drawing first
    and in the first five."""
    result = {}
    for drawn, order in fused_orders(dump["sketches"], "drawn", models, drawings, m, d, k, w):
        first, in_five, kind_first = hits(corpus.files, drawn, order)
        r = result.setdefault(corpus.files[drawn]["half"][:4], [0] * 8)
        if corpus.drawing[drawn]:
            r[5] += 1
            r[6] += first
            r[7] += in_five
            continue
        r[0] += 1
        r[1] += first
        r[2] += in_five
        if kind_first is not None:
            r[3] += 1
            r[4] += kind_first
    return " sketches " + " ".join(
        "%s part1 %d/%d part5 %d/%d kind %d/%d drawing1 %d/%d drawing5 %d/%d"
        % (h, r[1], r[0], r[2], r[0], r[4], r[3], r[6], r[5], r[7], r[5])
        for h, r in sorted(result.items()))


def summarise(rows):
    return " | ".join("%s kind %d/%d P@3 %.0f%% twins %d/%d" % (
        h[:4], r["kind"][0], r["kind"][1], 100 * r["three"] / max(1, 3 * r["kind"][1]),
        r["twin"][0], r["twin"][1]) for h, r in sorted(rows.items(), reverse=True))


if __name__ == "__main__":
    main()
