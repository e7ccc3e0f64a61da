from pathlib import Path

# The embedded default model (config.json, model.safetensors, tokenizer.json), made by
# scripts/train_default_model.py from the corpus in default/corpus/.
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent / "default"
