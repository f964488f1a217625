"""Decision records as files, in every format waysweb meets: read them (parse.py), change their status
lines keeping every other byte (edit.py), write new ones (new.py). Plain functions over bytes, no Django."""
