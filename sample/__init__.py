"""The bundled sample HOME: its generator (build.py and the modules it plays), and the format writers
(formats.py) and session builder (transcript.py) it shares with bench/corpus.py."""
