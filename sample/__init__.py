"""The bundled sample HOME: its generator (build.py) and the format writers it shares with bench/corpus.py."""
