"""The zoo's transformers models, built offline from their configs with random weights (no download).

Each entry names a config class, a model class, the config's arguments at the tiny size and at the realistic one
(``{}`` is the library's default config: the base-size model), and the kind of inputs the model takes.  A model
is its base class (no language-model head): the head is one more GEMM the body already has.
"""
from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# tiny sizes: hidden 64, 2 layers, 4 heads, vocabulary 128
_DEC = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=128, max_position_embeddings=64, use_cache=False)
_ENC = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, vocab_size=128,
            max_position_embeddings=64)
_SEQ2SEQ = dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                encoder_ffn_dim=128, decoder_ffn_dim=128, vocab_size=128, max_position_embeddings=64, use_cache=False)
_VIT = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, image_size=32,
            patch_size=8)
# the realistic decoder: one layer of a 1B-class model (Llama-3.2-1B's widths)
_DEC_REAL = dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=1, num_attention_heads=32,
                 num_key_value_heads=8, vocab_size=32000, max_position_embeddings=2048, use_cache=False)
_ONE_LAYER = dict(num_hidden_layers=1, use_cache=False)


def _d(**kw):
    return {**_DEC, **kw}


# name: (family, config class, model class, tiny kwargs, real kwargs, inputs)
# inputs: "tokens" (input_ids), "seq2seq" (input_ids, decoder_input_ids), "image" (pixel_values),
# "audio" (input_features, decoder_input_ids), "text+image" (input_ids, pixel_values)
MODELS = {
    # decoders
    "gpt2": ("decoder", "GPT2Config", "GPT2Model",
             dict(n_layer=2, n_embd=64, n_head=4, vocab_size=128, n_positions=64, use_cache=False),
             dict(n_layer=1, n_embd=2048, n_head=16, use_cache=False), "tokens"),
    "llama": ("decoder", "LlamaConfig", "LlamaModel", _d(), _DEC_REAL, "tokens"),
    "mistral": ("decoder", "MistralConfig", "MistralModel", _d(), {**_DEC_REAL, "intermediate_size": 5632}, "tokens"),
    "qwen2": ("decoder", "Qwen2Config", "Qwen2Model", _d(), {**_DEC_REAL, "intermediate_size": 5504}, "tokens"),
    "qwen3": ("decoder", "Qwen3Config", "Qwen3Model", _d(head_dim=16), {**_DEC_REAL, "head_dim": 64}, "tokens"),
    "phi": ("decoder", "PhiConfig", "PhiModel", _d(), {**_DEC_REAL, "num_key_value_heads": 32}, "tokens"),
    "phi3": ("decoder", "Phi3Config", "Phi3Model", _d(pad_token_id=0), _DEC_REAL, "tokens"),
    "gpt-neox": ("decoder", "GPTNeoXConfig", "GPTNeoXModel",
                 dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                      vocab_size=128, max_position_embeddings=64, use_cache=False),
                 dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=1, num_attention_heads=16,
                      use_cache=False), "tokens"),
    "opt": ("decoder", "OPTConfig", "OPTModel",
            dict(hidden_size=64, ffn_dim=128, num_hidden_layers=2, num_attention_heads=4, vocab_size=128,
                 max_position_embeddings=64, word_embed_proj_dim=64, use_cache=False),
            dict(hidden_size=2048, ffn_dim=8192, num_hidden_layers=1, num_attention_heads=32,
                 word_embed_proj_dim=2048, use_cache=False), "tokens"),
    "falcon": ("decoder", "FalconConfig", "FalconModel",
               dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, vocab_size=128, use_cache=False),
               dict(hidden_size=2048, num_hidden_layers=1, num_attention_heads=32, use_cache=False), "tokens"),
    "gemma": ("decoder", "GemmaConfig", "GemmaModel", _d(head_dim=16), {**_DEC_REAL, "head_dim": 64}, "tokens"),
    "gemma2": ("decoder", "Gemma2Config", "Gemma2Model", _d(head_dim=16, sliding_window=32),
               {**_DEC_REAL, "head_dim": 64, "sliding_window": 512}, "tokens"),
    "gptj": ("decoder", "GPTJConfig", "GPTJModel",
             dict(n_embd=64, n_layer=2, n_head=4, rotary_dim=8, vocab_size=128, n_positions=64, use_cache=False),
             dict(n_embd=2048, n_layer=1, n_head=16, rotary_dim=64, use_cache=False), "tokens"),
    "bloom": ("decoder", "BloomConfig", "BloomModel",
              dict(hidden_size=64, n_layer=2, n_head=4, vocab_size=128, use_cache=False),
              dict(hidden_size=2048, n_layer=1, n_head=16, use_cache=False), "tokens"),
    "stablelm": ("decoder", "StableLmConfig", "StableLmModel", _d(), _DEC_REAL, "tokens"),
    "starcoder2": ("decoder", "Starcoder2Config", "Starcoder2Model", _d(), _DEC_REAL, "tokens"),
    "olmo": ("decoder", "OlmoConfig", "OlmoModel", _d(), _DEC_REAL, "tokens"),
    "granite": ("decoder", "GraniteConfig", "GraniteModel", _d(), _DEC_REAL, "tokens"),
    "codegen": ("decoder", "CodeGenConfig", "CodeGenModel",
                dict(n_embd=64, n_layer=2, n_head=4, rotary_dim=8, vocab_size=128, n_positions=64, n_ctx=64,
                     use_cache=False),
                dict(n_embd=2048, n_layer=1, n_head=16, rotary_dim=64, use_cache=False), "tokens"),
    # mixtures of experts
    "mixtral": ("moe", "MixtralConfig", "MixtralModel", _d(num_local_experts=4, num_experts_per_tok=2),
                {**_DEC_REAL, "num_local_experts": 8, "num_experts_per_tok": 2}, "tokens"),
    "qwen2-moe": ("moe", "Qwen2MoeConfig", "Qwen2MoeModel",
                  _d(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=64,
                     shared_expert_intermediate_size=64),
                  {**_DEC_REAL, "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 1408,
                   "shared_expert_intermediate_size": 5632}, "tokens"),
    # encoders (real: the library's default, the base size, 12 layers)
    "bert": ("encoder", "BertConfig", "BertModel", _ENC, {}, "tokens"),
    "roberta": ("encoder", "RobertaConfig", "RobertaModel", {**_ENC, "max_position_embeddings": 66}, {}, "tokens"),
    "xlm-roberta": ("encoder", "XLMRobertaConfig", "XLMRobertaModel", {**_ENC, "max_position_embeddings": 66},
                    {"vocab_size": 30522}, "tokens"),
    "distilbert": ("encoder", "DistilBertConfig", "DistilBertModel",
                   dict(dim=64, hidden_dim=128, n_layers=2, n_heads=4, vocab_size=128, max_position_embeddings=64),
                   {}, "tokens"),
    "albert": ("encoder", "AlbertConfig", "AlbertModel", {**_ENC, "embedding_size": 32}, {"vocab_size": 30000},
               "tokens"),
    "electra": ("encoder", "ElectraConfig", "ElectraModel", {**_ENC, "embedding_size": 32}, {}, "tokens"),
    "deberta": ("encoder", "DebertaConfig", "DebertaModel", _ENC, {}, "tokens"),
    "deberta-v2": ("encoder", "DebertaV2Config", "DebertaV2Model", _ENC, {"vocab_size": 30522}, "tokens"),
    "mpnet": ("encoder", "MPNetConfig", "MPNetModel", {**_ENC, "max_position_embeddings": 66}, {}, "tokens"),
    # encoder-decoders
    "t5": ("encoder-decoder", "T5Config", "T5Model",
           dict(d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2, num_heads=4, vocab_size=128,
                use_cache=False),
           {"use_cache": False}, "seq2seq"),
    "bart": ("encoder-decoder", "BartConfig", "BartModel", _SEQ2SEQ, {"use_cache": False}, "seq2seq"),
    "mbart": ("encoder-decoder", "MBartConfig", "MBartModel", _SEQ2SEQ,
              {"use_cache": False, "vocab_size": 32000, "encoder_layers": 6, "decoder_layers": 6}, "seq2seq"),
    "marian": ("encoder-decoder", "MarianConfig", "MarianModel",
               {**_SEQ2SEQ, "decoder_vocab_size": 128, "pad_token_id": 0, "decoder_start_token_id": 0},
               {"use_cache": False, "vocab_size": 32000, "decoder_vocab_size": 32000}, "seq2seq"),
    "pegasus": ("encoder-decoder", "PegasusConfig", "PegasusModel", _SEQ2SEQ,
                {"use_cache": False, "encoder_layers": 6, "decoder_layers": 6}, "seq2seq"),
    # audio
    "whisper": ("audio", "WhisperConfig", "WhisperModel",
                dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                     decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, vocab_size=128,
                     num_mel_bins=16, max_source_positions=32, max_target_positions=32, use_cache=False,
                     pad_token_id=0, decoder_start_token_id=1, bos_token_id=1, eos_token_id=2),
                {"use_cache": False}, "audio"),
    # dual encoders
    "clip": ("dual-encoder", "CLIPConfig", "CLIPModel",
             dict(text_config=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                                   vocab_size=128, max_position_embeddings=32),
                  vision_config=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                     num_attention_heads=4, image_size=32, patch_size=8), projection_dim=32),
             {}, "text+image"),
    "siglip": ("dual-encoder", "SiglipConfig", "SiglipModel",
               dict(text_config=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                     num_attention_heads=4, vocab_size=128, max_position_embeddings=32),
                    vision_config=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                       num_attention_heads=4, image_size=32, patch_size=8)),
               {}, "text+image"),
    # vision transformers
    "vit": ("vision", "ViTConfig", "ViTModel", _VIT, {}, "image"),
    "deit": ("vision", "DeiTConfig", "DeiTModel", _VIT, {}, "image"),
    "beit": ("vision", "BeitConfig", "BeitModel", {**_VIT, "vocab_size": 128}, {}, "image"),
    "dinov2": ("vision", "Dinov2Config", "Dinov2Model", _VIT, {"image_size": 224, "patch_size": 16}, "image"),
    "swin": ("vision", "SwinConfig", "SwinModel",
             dict(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 4], window_size=4), {},
             "image"),
    # convolutional networks
    "convnext": ("cnn", "ConvNextConfig", "ConvNextModel",
                 dict(hidden_sizes=[16, 32], depths=[1, 1], num_stages=2, image_size=32), {}, "image"),
    "convnext-v2": ("cnn", "ConvNextV2Config", "ConvNextV2Model",
                    dict(hidden_sizes=[16, 32], depths=[1, 1], num_stages=2, image_size=32), {}, "image"),
    "resnet": ("cnn", "ResNetConfig", "ResNetModel",
               dict(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], layer_type="basic"), {}, "image"),
    "regnet": ("cnn", "RegNetConfig", "RegNetModel",
               dict(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], groups_width=8), {}, "image"),
    "mobilenet-v1": ("cnn", "MobileNetV1Config", "MobileNetV1Model", dict(image_size=32, depth_multiplier=0.25),
                     {}, "image"),
    "mobilenet-v2": ("cnn", "MobileNetV2Config", "MobileNetV2Model", dict(image_size=32, depth_multiplier=0.25),
                     {}, "image"),
}


def build(name: str, size: str):
    """The model and its inputs (a dict of keyword arguments), seeded by the caller."""
    import torch
    import transformers
    transformers.logging.set_verbosity_error()
    family, cfg_cls, model_cls, tiny, real, kind = MODELS[name]
    cfg = getattr(transformers, cfg_cls)(**(tiny if size == "tiny" else real))
    model = getattr(transformers, model_cls)(cfg)
    batch, seq = (2, 16) if size == "tiny" else (1, 128)
    vocab = getattr(cfg, "vocab_size", None) or getattr(getattr(cfg, "text_config", None), "vocab_size", 128)
    tokens = lambda n: torch.randint(0, vocab, (batch, n))
    if kind == "tokens":
        inputs = {"input_ids": tokens(seq)}
    elif kind == "seq2seq":
        inputs = {"input_ids": tokens(seq), "decoder_input_ids": tokens(seq // 2)}
    elif kind == "audio":
        frames = 2 * cfg.max_source_positions
        inputs = {"input_features": torch.randn(batch, cfg.num_mel_bins, frames), "decoder_input_ids": tokens(8)}
    else:
        vc = getattr(cfg, "vision_config", cfg)
        image = getattr(vc, "image_size", 32 if size == "tiny" else 224)
        image = image if isinstance(image, int) else image[0]
        inputs = {"pixel_values": torch.randn(batch, getattr(vc, "num_channels", 3), image, image)}
        if kind == "text+image":
            inputs["input_ids"] = torch.randint(0, cfg.text_config.vocab_size, (batch, 8))
    return model, inputs
