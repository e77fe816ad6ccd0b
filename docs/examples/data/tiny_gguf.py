#!/usr/bin/env python3
"""Writes tiny.gguf, the file docs/examples/gguf.c reads, with the gguf package from PyPI (llama.cpp's gguf-py):
metadata as a model's (a name, a context length, a tokenizer's tokens and scores), an f32 embedding, an f16
norm and a Q8_0 weight quantised by gguf.quants.quantize.

    pip install gguf && python3 tiny_gguf.py    (in this folder)
"""
import numpy as np
import gguf
import gguf.quants

w = gguf.GGUFWriter('tiny.gguf', 'tiny')
w.add_name('tiny example')
w.add_context_length(64)
w.add_float32('tiny.rope.freq_base', 10000.0)
w.add_array('tokenizer.ggml.tokens', ['<s>', '</s>', 'hello', 'world'])
w.add_array('tokenizer.ggml.scores', [0.0, 0.0, -1.5, -2.25])
w.add_tensor('token_embd.weight', np.arange(4 * 8, dtype=np.float32).reshape(4, 8) / 8)
w.add_tensor('output_norm.weight', np.linspace(0.5, 1.5, 8).astype(np.float16))
x = np.sin(np.arange(2 * 32, dtype=np.float32)).reshape(2, 32)
w.add_tensor('blk.0.attn_q.weight', gguf.quants.quantize(x, gguf.GGMLQuantizationType.Q8_0),
             raw_dtype=gguf.GGMLQuantizationType.Q8_0)
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
