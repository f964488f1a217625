"""Ledger files as formats, no Django: decision records in every format waysweb meets (read them with
parse.py, change their status lines keeping every other byte with edit.py, write new ones with
new.py), and the Markdown documents with front matter the entries, knowledge and memory are written in
(document.py). Plain functions over bytes."""
