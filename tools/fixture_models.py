#!/usr/bin/env python3
"""Makes the tiny random-weight MiniCPM-V test models (tools/make-fixture-models runs this).

The pair has the real architecture of MiniCPM-V 4.6 (the family of the product's 4.7 1B): a `qwen35`
language model with linear-attention (Gated DeltaNet) and full-attention layers, and a `minicpmv4_6`
mmproj (SigLIP + window-attention merger + downsampling merger). Only the sizes are tiny and the
weights random. The steps:

1. a byte-level BPE tokenizer cut from llama.cpp's models/ggml-vocab-qwen35.gguf (the first tokens,
   their merges, and the real special strings <|im_start|>, <image>, <slice>, <think>, …);
2. a transformers MiniCPMV4_6ForConditionalGeneration with a tiny config, random weights (std 0.2,
   fixed seed), saved as safetensors;
3. llama.cpp's own converter (convert_hf_to_gguf.py, --no-mtp, --outtype q8_0) writes the language
   model and the mmproj as GGUF, Q8_0 (tensors too small to quantize stay F16/F32).

A second language model, twice as wide (tiny-minicpmv-wide), does not fit that mmproj: the tests
use it for the "mmproj does not fit the model" error.

With --bench it makes one pair at sizes close to the real MiniCPM-V 4.6 (the full 151,936-token
Qwen vocabulary of the vendored test vocab, a 1024-wide 24-layer qwen35 language model, a
SigLIP-400M-sized vision tower): the same kind of compute as the real model, for tools/bench. Those
sizes are estimates, not read from the real checkpoint (it could not be downloaded here), and the
pair is never committed.

Usage: fixture_models.py LLAMA_SRC OUT_DIR [--bench]
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SEED = 20261001
TEXT_TOKENS = 1500           # the first ids of the qwen35 vocabulary that are kept
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<image>", "</image>", "<slice>", "</slice>",
            "<think>", "</think>", "<unk>", "<|image_pad|>", "<|video_pad|>"]


def make_tokenizer(llama_src: Path, out: Path, text_tokens: int = TEXT_TOKENS, extra_specials=()) -> dict:
    sys.path.insert(0, str(llama_src / "gguf-py"))
    import gguf
    from tokenizers import Tokenizer, AddedToken, decoders, pre_tokenizers, Regex
    from tokenizers.models import BPE

    reader = gguf.GGUFReader(str(llama_src / "models/ggml-vocab-qwen35.gguf"))
    field = reader.fields["tokenizer.ggml.tokens"]
    tokens = [bytes(field.parts[i]).decode("utf-8") for i in field.data]
    field = reader.fields["tokenizer.ggml.merges"]
    merges = [bytes(field.parts[i]).decode("utf-8") for i in field.data]

    specials = SPECIALS + list(extra_specials)
    specials_there = set(specials)
    kept = [t for t in tokens[:text_tokens] if t not in specials_there and not t.startswith("[PAD")]
    vocab = {t: i for i, t in enumerate(kept)}
    kept_merges = []
    for m in merges:
        a, b = m.split(" ")
        if a in vocab and b in vocab and (a + b) in vocab:
            kept_merges.append((a, b))
    for s in specials:
        vocab[s] = len(vocab)

    split = Regex(r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
    tok = Tokenizer(BPE(vocab=vocab, merges=kept_merges, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(split, behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    tok.save(str(out / "tokenizer.json"))
    chat = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
            "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n<think>\n\n</think>\n\n{% endif %}")
    (out / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "Qwen2Tokenizer", "model_max_length": 4096,
        "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "unk_token": None, "bos_token": None,
        "chat_template": chat,
    }, indent=1))
    return vocab


TINY = dict(
    text=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=4,
              layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],
              num_attention_heads=4, num_key_value_heads=2, head_dim=16,
              linear_num_key_heads=2, linear_num_value_heads=4, linear_key_head_dim=16, linear_value_head_dim=16,
              rope=dict(partial_rotary_factor=1.0, mrope_section=[3, 3, 2])),
    vision=dict(hidden_size=32, intermediate_size=48, num_hidden_layers=3, num_attention_heads=2),
    insert_layer_id=1,
)
BENCH = dict(
    text=dict(hidden_size=1024, intermediate_size=3584, num_hidden_layers=24,
              layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 6,
              num_attention_heads=8, num_key_value_heads=2, head_dim=256,
              linear_num_key_heads=16, linear_num_value_heads=16, linear_key_head_dim=128, linear_value_head_dim=128,
              rope=dict(partial_rotary_factor=0.25, mrope_section=[11, 11, 10])),
    vision=dict(hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16),
    insert_layer_id=6,
    vocab_size=248320,   # Qwen3.5's tokenizer: the output layer's size (the converter pads the vocabulary)
)


def text_config(vocab: dict, shapes: dict = TINY, hidden: int = 64, rope_theta: float = 10000000.0) -> dict:
    """The qwen3_5_text language model's config for `shapes` (the tiny one `hidden` wide)."""
    t = dict(shapes["text"])
    rope = t.pop("rope")
    if shapes is TINY:
        t["hidden_size"] = hidden
    return dict(
        model_type="qwen3_5_text", vocab_size=max(len(vocab), shapes.get("vocab_size", 0)), linear_conv_kernel_dim=4, max_position_embeddings=4096,
        rms_norm_eps=1e-6, eos_token_id=vocab["<|im_end|>"], pad_token_id=vocab["<|endoftext|>"],
        rope_parameters={"rope_type": "default", "rope_theta": rope_theta, "mrope_interleaved": True, **rope}, **t,
    )


def vision_config(shapes: dict = TINY) -> dict:
    return dict(image_size=980, patch_size=14, **shapes["vision"])


def randomize(model) -> None:
    """Random weights (std 0.2), norms at 1, A_log uniform in [0, 1): in the order the seed makes them."""
    import torch
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.2)
            elif "norm" in name and "bias" not in name:
                p.fill_(1.0) if not name.endswith("A_log") else p.uniform_(0.0, 1.0)


def save(model, out: Path) -> None:
    """The checkpoint, with the image processor's settings beside it."""
    model.save_pretrained(str(out), safe_serialization=True)
    (out / "preprocessor_config.json").write_text(json.dumps({
        "image_processor_type": "MiniCPMV4_6ImageProcessor", "scale_resolution": 448, "max_slice_nums": 9,
        "patch_size": 14, "slice_mode": True, "downsample_mode": "16x",
        "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5],
    }, indent=1))


def make_checkpoint(out: Path, vocab: dict, hidden: int = 64, shapes: dict = TINY) -> None:
    import torch
    from transformers import MiniCPMV4_6Config, MiniCPMV4_6ForConditionalGeneration

    torch.manual_seed(SEED)
    config = MiniCPMV4_6Config(text_config=text_config(vocab, shapes, hidden), vision_config=vision_config(shapes),
                               insert_layer_id=shapes["insert_layer_id"], image_size=448,
                               downsample_mode="16x", image_token_id=vocab["<|image_pad|>"],
                               video_token_id=vocab["<|video_pad|>"])
    config.architectures = ["MiniCPMV4_6ForConditionalGeneration"]
    model = MiniCPMV4_6ForConditionalGeneration(config)
    randomize(model)
    save(model, out)


def convert(llama_src: Path, ckpt: Path, out_dir: Path, stem: str, mmproj_too: bool = True, outtype: str = "q8_0",
            mmproj_outtype: str = "") -> None:
    # The truncated vocabulary gives another pre-tokenizer hash than the real one: point it at qwen35.
    runner = f"""
import sys
sys.path.insert(0, {str(llama_src)!r}); sys.path.insert(0, {str(llama_src / 'gguf-py')!r})
import conversion.base as base
base.TextModel.get_vocab_base_pre = lambda self, tokenizer: "qwen35"
sys.argv = sys.argv[1:]
import runpy
runpy.run_path({str(llama_src / 'convert_hf_to_gguf.py')!r}, run_name="__main__")
"""
    for mmproj in ((False, True) if mmproj_too else (False,)):
        kind = (mmproj_outtype or outtype) if mmproj else outtype
        suffix = kind.upper()
        name = f"{stem}-mmproj-{suffix}.gguf" if mmproj else f"{stem}-{suffix}.gguf"
        args = [sys.executable, "-c", runner, "convert", str(ckpt), "--outtype", kind,
                "--outfile", str(out_dir / name)] + (["--mmproj"] if mmproj else ["--no-mtp"])
        subprocess.run(args, check=True)


def main() -> None:
    llama_src, out_dir = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    if "--bench" in sys.argv:
        with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
            ckpt = Path(tmp) / "checkpoint"
            ckpt.mkdir()
            vocab = make_tokenizer(llama_src, ckpt, text_tokens=10**9)
            make_checkpoint(ckpt, vocab, shapes=BENCH)
            # The mmproj in F16, as users download it (mmproj-model-f16.gguf); the language model Q8_0.
            convert(llama_src, ckpt, Path(tmp), "bench-minicpmv", mmproj_outtype="f16")
            for f in sorted(Path(tmp).glob("*.gguf")):
                os.replace(f, out_dir / f.name)
        return
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = Path(tmp) / "checkpoint"
        ckpt.mkdir()
        vocab = make_tokenizer(llama_src, ckpt)
        make_checkpoint(ckpt, vocab)
        convert(llama_src, ckpt, Path(tmp), "tiny-minicpmv")
        # A language model twice as wide, whose width the mmproj above does not fit (a test of that error).
        make_checkpoint(ckpt, vocab, hidden=128)
        convert(llama_src, ckpt, Path(tmp), "tiny-minicpmv-wide", mmproj_too=False)
        for f in sorted(Path(tmp).glob("*.gguf")):
            os.replace(f, out_dir / f.name)


if __name__ == "__main__":
    main()
