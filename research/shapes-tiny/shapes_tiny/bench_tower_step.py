#!/usr/bin/env python3
"""The tower stage's step (loss and backward) with the tower's attention batched (batched_attention)
against transformers' own, one SDPA call a piece, interleaved on the same pictures, on a trained
checkpoint.

Usage: research/shapes-tiny/bench-tower CHECKPOINT [--rounds N] [--threads N]

CHECKPOINT is a folder that `research/shapes-tiny/train --keep-checkpoint` wrote. Each round runs 4 crop
steps (16 crops) and 1 whole-picture step (4 frames or photos), as the stage does, each step both
ways in turn (the order swaps every round: the machine is shared and noisy). Before timing, it stops
unless both ways give the same losses, the same gradients and the same features of whole pictures,
bit for bit: batching is a saving, never a change to what is learnt. Prints each kind's median and
the ratio.
"""

import argparse
import time

import numpy as np

import benchlib  # tools/benchlib.py: the wrappers put tools/ on PYTHONPATH

from . import train as T


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds takes 1 or more")
    import torch
    from transformers import MiniCPMV4_7Config, MiniCPMV4_7ForConditionalGeneration
    ckpt = T.bench_checkpoint(ap, args.checkpoint, args.threads)
    config = MiniCPMV4_7Config.from_pretrained(str(ckpt))
    ways = {False: MiniCPMV4_7ForConditionalGeneration.from_pretrained(str(ckpt)).train(),
            True: MiniCPMV4_7ForConditionalGeneration.from_pretrained(str(ckpt)).train()}
    T.batch_tower_attention(ways[True])
    enc = T.ENC = T.Encoder(ckpt, config)
    torch.manual_seed(1)
    heads = T.vision_heads(config.text_config.hidden_size, True)
    steps = [("whole-picture" if s % 5 == 4 else "crop", T.see_pictures((7, s, 16))) for s in range(5)]

    def step(batched, pictures):
        model = ways[batched]
        model.zero_grad(set_to_none=True)
        heads.zero_grad(set_to_none=True)
        started = time.monotonic()
        loss = T.vision_loss(model, heads, pictures, 0.25)[0]
        loss.backward()
        spent = time.monotonic() - started
        return spent, loss.item(), [p.grad.clone() for p in model.model.vision_tower.parameters() if p.grad is not None]

    for kind, pictures in steps:
        _, plain, g0 = step(False, pictures)
        _, batched, g1 = step(True, pictures)
        if plain != batched or len(g0) != len(g1) or any(not torch.equal(a, b) for a, b in zip(g0, g1)):
            drift = max((a - b).abs().max().item() for a, b in zip(g0, g1))
            raise SystemExit(f"bench: a {kind} step differs batched: loss {plain} against {batched}, gradients by {drift:.3g}")
    pictures = [T.picture_for(enc, np.random.default_rng([7, 3, k]))[:3] for k in range(8)]
    with torch.no_grad():
        plain, batched = (T.features(enc, ways[w], pictures) for w in (False, True))
    if any(not torch.equal(a, b) for xs, ys in zip(plain, batched) for a, b in zip(xs, ys)):
        raise SystemExit("bench: the features of whole pictures differ batched")
    print("bench: the same losses, gradients and features both ways, bit for bit (4 crop steps, 1 whole-picture step, 8 pictures)")
    medians, runs = benchlib.interleaved(steps, lambda batched, pictures: step(batched, pictures)[0], args.rounds)
    benchlib.print_ratios(medians, runs, ("a call a piece", "batched", "batched/plain"), {"crop": 4, "whole-picture": 1})


if __name__ == "__main__":
    main()
