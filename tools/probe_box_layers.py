"""Where along a shapes-tiny checkpoint's language model a box's place is held: the true box answers
given (teacher-forced) to box questions about held-out frames, as lookd asks them, and a ridge
(linear) probe of each layer's hidden state, at the place that writes each edge's first digit, for
that edge per mille (fitted on two thirds of the edges, tested on the rest). Prints each layer's
median edge error per mille and how often the model's own first digit there is right, to set
against tools/probe_box_precision.py's figures for the tower's tokens. A diagnosis, not part of
training: docs/engines.md ("Where the boxes' precision is lost") gives its figures.

Usage: .deps/fixture-venv/bin/python tools/probe_box_layers.py CHECKPOINT [--frames N] [--seed N]
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


def box_rows(enc, model, rng, scenes):
    """For each scene with a thing: (ids with the true answer, the places that write each edge's first
    digit, the edges per mille, the picture, its features)."""
    import torch
    digits = {enc.tok.convert_tokens_to_ids(str(d)) for d in range(10)}
    pictures = [enc.picture(W.render(s)) for s in scenes]
    with torch.no_grad():
        feats = T.features(enc, model, pictures)
    rows = []
    for scene, picture, f in zip(scenes, pictures, feats):
        thing = scene.things[rng.integers(len(scene.things))]
        answer = W.box_answer(scene, thing.phrase, T.BOX_STEP)
        ids, labels = enc.sequence(picture[2], W.box_question(thing.phrase), answer)
        prompt = len(ids) - sum(x != -100 for x in labels)
        firsts = [i for i in range(prompt, len(ids)) if ids[i] in digits and ids[i - 1] not in digits]
        if len(firsts) == 4:
            rows.append((ids, [i - 1 for i in firsts], [float(v) for v in answer[5:-6].split()], picture, f))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--frames", type=int, default=600, help="held-out frames, one box question each")
    ap.add_argument("--seed", type=int, default=4242, help="the frames' seed (the training's is 20261202)")
    args = ap.parse_args()
    if args.frames < 30:
        ap.error("--frames takes a whole number of 30 or more")
    ckpt = Path(args.checkpoint)
    if not (ckpt / "config.json").is_file():
        ap.error(f"{ckpt}: no config.json there (a folder that tools/train-shapes-tiny --keep-checkpoint wrote)")
    import torch
    torch.set_num_threads(2)
    model, config, enc = T.load_checkpoint(ckpt)
    rng = np.random.default_rng(args.seed)
    hidden, edge, value, right = [], [], [], []
    for first in range(0, args.frames, 16):
        scenes = [W.random_scene(rng, W.FRAME, edges=rng.random() < 0.2) for _ in range(min(16, args.frames - first))]
        rows = box_rows(enc, model, rng, [s for s in scenes if s.things])
        if not rows:
            continue
        n, pad = max(len(r[0]) for r in rows), enc.tok.pad_token_id
        ids = torch.tensor([r[0] + [pad] * (n - len(r[0])) for r in rows])
        mask = torch.tensor([[1] * len(r[0]) + [0] * (n - len(r[0])) for r in rows])
        model.model.rope_deltas = None
        with torch.no_grad():
            out = model.model(input_ids=ids, attention_mask=mask, mm_token_type_ids=(ids == config.image_token_id).int(),
                              target_sizes=torch.cat([r[3][1] for r in rows]), mm_encoder_outputs=T.encoded([r[4] for r in rows]),
                              output_hidden_states=True)
            logits = model.lm_head(out.last_hidden_state)
        model.model.rope_deltas = None
        for k, (_, spots, edges, _, _) in enumerate(rows):
            for e, spot in enumerate(spots):
                hidden.append(torch.stack([h[k, spot] for h in out.hidden_states]).numpy())
                edge.append(e)
                value.append(edges[e])
                right.append(enc.tok.decode([int(logits[k, spot].argmax())]) == str(int(edges[e]))[0])
    hidden, edge, value = np.array(hidden), np.array(edge), np.array(value)
    print(f"{len(hidden)} edges; the model's own first digit right (the answer before it given) {np.mean(right):.1%}")
    fit = len(hidden) * 2 // 3
    for layer in range(hidden.shape[1]):
        errors = []
        for e in range(4):
            a, b = np.nonzero(edge[:fit] == e)[0], fit + np.nonzero(edge[fit:] == e)[0]
            A, B = np.c_[hidden[a, layer], np.ones(len(a))], np.c_[hidden[b, layer], np.ones(len(b))]
            w = np.linalg.solve(A.T @ A + np.eye(A.shape[1]), A.T @ value[a])
            errors.append(np.median(np.abs(B @ w - value[b])))
        name = "the embeddings" if layer == 0 else f"layer {layer - 1}'s output"
        print(f"{name}: edges off at the median (x1 y1 x2 y2, per mille) " + " ".join(f"{x:.0f}" for x in errors))


if __name__ == "__main__":
    main()
