"""Runs the answer stage again on a shapes-tiny checkpoint, on pictures it has not seen, and measures
it: what more answer time buys. A diagnosis, not a recipe (the training script's pair is what ships);
docs/engines.md ("What more answer time buys") gives its figures.

Usage: .deps/fixture-venv/bin/python tools/continue_answers.py CHECKPOINT OUT [--steps N]
           [--questions N] [--pool N] [--round K] [--held-out N]
  CHECKPOINT: a transformers checkpoint that tools/train-shapes-tiny --keep-checkpoint wrote (or
  this script's OUT). OUT: a new folder for the continued checkpoint. --round K draws the pool at
  the training's seed + K (the training's own pool is round 0), so each round's pictures are new.
"""
import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_shapes_tiny as T  # noqa: E402

import numpy as np  # noqa: E402

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    recipe = T.arguments()  # the training script's defaults
    ap.add_argument("--steps", type=int, default=recipe.get_default("answer_steps"), help="answer steps (default: the training's)")
    ap.add_argument("--questions", type=int, default=3, help="questions a picture a step (the training's: 3)")
    ap.add_argument("--pool", type=int, default=2000, help="new pictures the tower encodes for them")
    ap.add_argument("--round", type=int, default=1, help="the pool's seed is the training's + this (1 or more)")
    ap.add_argument("--held-out", type=int, default=1000, help="stills to measure on (the training's measure)")
    args = ap.parse_args()
    for name in ("steps", "questions", "pool", "round", "held_out"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} takes a whole number of 1 or more")
    ckpt, out = Path(args.checkpoint), Path(args.out)
    if not (ckpt / "config.json").is_file():
        ap.error(f"{ckpt}: no config.json there (a folder that tools/train-shapes-tiny --keep-checkpoint wrote)")
    if out.exists():
        ap.error(f"{out}: already there (give a new folder)")
    import torch
    torch.set_num_threads(2)
    T.EDGES_IN_VIEW = recipe.get_default("edges_in_view") or None  # as the training's main sets it
    model, _, enc = T.load_checkpoint(ckpt)
    T.ENC = enc
    started = time.monotonic()
    trained = recipe.get_default("seed")
    seed = trained + args.round
    torch.manual_seed(seed)
    model.train()
    pool = T.encode_pool(model, enc, T.drawer(0), seed, args.pool)
    T.train_answers(model, enc, pool, np.random.default_rng([seed, 3]), args.steps, recipe.get_default("answer_batch"), args.questions,
                    probes=T.probe_set(model, enc, trained), place_weight=recipe.get_default("place_weight"), box_step=T.BOX_STEP,
                    per_photo_step=recipe.get_default("photo_batch"))
    model.eval()
    spent = time.monotonic() - started
    model.save_pretrained(str(out), safe_serialization=True)
    for name in ("preprocessor_config.json", "tokenizer.json", "tokenizer_config.json"):
        shutil.copy(ckpt / name, out / name)
    figures = T.measure_all(model, enc, trained, args.held_out)
    figures["continued_minutes"] = round(spent / 60, 1)
    (out / "measured.json").write_text(json.dumps(figures, indent=1) + "\n")
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
