"""The sample's fourteen sessions, one module each; sample/build.py plays them in order."""
