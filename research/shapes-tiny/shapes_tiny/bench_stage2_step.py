#!/usr/bin/env python3
"""The answer stage's step (loss and backward) with a picture's shared start run once (prefix_pass)
against the same step run whole, interleaved on the same items, on a trained checkpoint.

Usage: research/shapes-tiny/bench-stage2 CHECKPOINT [--rounds N] [--pool N]

CHECKPOINT is a folder that `research/shapes-tiny/train --keep-checkpoint` wrote. Each round runs 7
frame steps (16 frames) and 1 photo step (8 photos), as the stage does, each step both ways in turn
(the order swaps every round: the machine is shared and noisy). Before timing, it stops unless both
ways give the same four losses (to 1e-5) and the same gradients (to 1e-5 of the largest): sharing
is a saving, never a change to what is learnt. Prints each kind's median and the ratio.
"""

import argparse
import time

import numpy as np

import benchlib  # tools/benchlib.py: the wrappers put tools/ on PYTHONPATH

from . import train as T


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pool", type=int, default=300, help="pictures to encode and draw the steps from")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    if args.rounds < 1 or args.pool < 64:
        ap.error("--rounds takes 1 or more, --pool 64 or more")
    import torch
    from transformers import MiniCPMV4_7Config, MiniCPMV4_7ForConditionalGeneration
    ckpt = T.bench_checkpoint(ap, args.checkpoint, args.threads)
    model = MiniCPMV4_7ForConditionalGeneration.from_pretrained(str(ckpt)).train()
    enc = T.ENC = T.Encoder(ckpt, MiniCPMV4_7Config.from_pretrained(str(ckpt)))
    T.answer_stage(model)
    torch.manual_seed(1)
    hidden = model.config.text_config.hidden_size
    presence, place = torch.nn.Linear(hidden, 1), torch.nn.Linear(hidden, 4)
    params = list(model.model.language_model.parameters()) + list(presence.parameters()) + list(place.parameters())
    pool = T.encode_pool(model, enc, T.drawer(0), 7, args.pool)
    frames = [p for p in pool if len(p[1]) == 1]
    photos = [p for p in pool if len(p[1]) > 1]
    if len(photos) < 8:
        ap.error(f"--pool {args.pool} drew {len(photos)} photos; a photo step takes 8")
    shared = T.prefix_pass

    def step(sharing, items):
        T.prefix_pass = shared if sharing else (lambda *_: None)
        for p in params:
            p.grad = None
        started = time.monotonic()
        losses = T.answer_loss(enc, model, presence, place, items)[:4]
        T.step_loss(*losses, place_weight=1.0).backward()
        spent = time.monotonic() - started
        grads = [torch.zeros_like(p) if p.grad is None else p.grad.clone() for p in params]
        return spent, [x.item() for x in losses], grads

    rng = np.random.default_rng(5)
    steps = []
    for k in range(8):
        kind, source, n = ("photo", photos, 8) if k == 7 else ("frame", frames, 16)
        picked = [source[i] for i in rng.choice(len(source), n, replace=False)]
        steps.append((kind, [(f, s, layout, scene, T.questions_for(rng, scene, 3, T.BOX_STEP)) for f, s, layout, scene in picked]))
    for kind, items in steps:
        _, whole, g0 = step(False, items)
        _, once, g1 = step(True, items)
        drift = max((a - b).abs().max().item() for a, b in zip(g0, g1))
        scale = max(a.abs().max().item() for a in g0)
        if max(abs(a - b) for a, b in zip(whole, once)) > 1e-5 or drift > 1e-5 * scale:
            raise SystemExit(f"bench: a {kind} step differs shared: losses {whole} against {once}, gradients by {drift:.3g} of {scale:.3g}")
    print(f"bench: the same losses and gradients both ways on all 8 steps (gradients within {1e-5:g} of the largest)")
    medians, runs = benchlib.interleaved(steps, lambda sharing, items: step(sharing, items)[0], args.rounds)
    benchlib.print_ratios(medians, runs, ("whole", "shared start", "shared/whole"), {"frame": 7, "photo": 1})


if __name__ == "__main__":
    main()
