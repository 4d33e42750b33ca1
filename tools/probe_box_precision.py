"""How precisely a shapes-tiny checkpoint's frozen tower holds each thing's box: a ridge (linear)
probe fitted on the picture tokens of some frames and tested on others, reading each thing's box
from each of its tokens and from the average of those readings, once with each token's row and
column beside its features and once from its features alone (all a language model's head reads).
Prints the held-out IoU median, the share at 0.5 or more and each edge's mean error per mille, to
set against what the language model writes (the training script's box figures). A diagnosis, not
part of training: docs/engines.md ("Where the boxes' precision is lost") gives its figures.

Usage: .deps/fixture-venv/bin/python tools/probe_box_precision.py CHECKPOINT [--frames N] [--seed N]
  CHECKPOINT: a transformers checkpoint that tools/train-shapes-tiny --keep-checkpoint wrote.
"""
import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shapes_world as W  # noqa: E402
import train_shapes_tiny as T  # noqa: E402

import numpy as np  # noqa: E402


def tokens(model, enc, rng, count: int):
    """Each thing token's features with its row, column and a 1; its thing's box in shares of the
    frame; which thing it belongs to; and each thing's box."""
    import torch
    X, Y, owner, boxes = [], [], [], []
    for first in range(0, count, 32):
        scenes = [W.random_scene(rng, W.FRAME, edges=rng.random() < 0.2) for _ in range(min(32, count - first))]
        pictures = [enc.picture(W.render(s)) for s in scenes]
        with torch.no_grad():
            feats = T.features(enc, model, pictures)
        for scene, picture, f in zip(scenes, pictures, feats):
            rows, cols = int(picture[1][0][0]) // 4, int(picture[1][0][1]) // 4
            kinds = np.array(W.cell_labels(scene, rows, cols))
            w, h = scene.size
            for t in scene.things:
                mine = np.nonzero(kinds == 1 + W.KINDS.index((t.colour, t.shape)))[0]
                if not len(mine):
                    continue
                x1, y1, x2, y2 = W.visible_box(scene, t)
                box = [x1 / w, y1 / h, x2 / w, y2 / h]
                for i in mine:
                    X.append(np.concatenate([f[0][i].numpy(), [(i // cols) / rows, (i % cols) / cols, 1.0]]))
                    Y.append(box)
                    owner.append(len(boxes))
                boxes.append(box)
    return np.array(X), np.array(Y), np.array(owner), np.array(boxes)


def line(name, guess, truth):
    # Each guess's corners put in order, as the training script's measure reads a written box.
    ordered = np.concatenate([np.minimum(guess[:, :2], guess[:, 2:]), np.maximum(guess[:, :2], guess[:, 2:])], 1)
    v = np.array([W.iou(g, t) for g, t in zip(ordered, truth)])
    edges = " ".join(f"{e:.1f}" for e in np.abs(guess - truth).mean(0) * 1000)
    return f"{name}: IoU median {np.median(v):.3f}, {np.mean(v >= 0.5):.1%} at 0.5 or more; edges off (x1 y1 x2 y2, per mille) {edges}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--frames", type=int, default=640, help="frames to fit the probe on (a third as many more test it)")
    ap.add_argument("--seed", type=int, default=99, help="the frames' seed (the training's is 20261202)")
    args = ap.parse_args()
    if args.frames < 3:
        ap.error("--frames takes a whole number of 3 or more")
    ckpt = Path(args.checkpoint)
    if not (ckpt / "config.json").is_file():
        ap.error(f"{ckpt}: no config.json there (a folder that tools/train-shapes-tiny --keep-checkpoint wrote)")
    import torch
    torch.set_num_threads(2)
    model, _, enc = T.load_checkpoint(ckpt)
    rng = np.random.default_rng(args.seed)
    Xa, Ya, _, _ = tokens(model, enc, rng, args.frames)
    Xb, Yb, owner, boxes = tokens(model, enc, rng, args.frames // 3)
    print(f"{len(Xa)} thing tokens to fit on, {len(Xb)} ({len(boxes)} things) to test on")
    # With each token's row and column beside its features, as the probe knows them; and from its
    # features alone, as a language model's head reads them (attention's values carry no position).
    everything = list(range(Xa.shape[1]))
    alone = everything[:-3] + everything[-1:]
    for given, keep in (("with its row and column", everything), ("its features alone", alone)):
        A, B = Xa[:, keep], Xb[:, keep]
        guess = B @ np.linalg.solve(A.T @ A + 1e-2 * np.eye(A.shape[1]), A.T @ Ya)
        print(line(f"one token, {given}", guess, Yb))
        print(line(f"a thing's tokens averaged, {given}", np.array([guess[owner == k].mean(0) for k in range(len(boxes))]), boxes))


if __name__ == "__main__":
    main()
