"""The sample's eighteen sessions, one module each; sample/build.py plays them in order."""
