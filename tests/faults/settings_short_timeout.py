"""waysweb settings with a 1 s SQLite busy timeout (20 s in production): fault case 21 holds the
database "past the timeout" for seconds, not minutes."""

from waysweb.settings import *
from waysweb.settings import DATABASES

DATABASES["default"]["OPTIONS"] = {**DATABASES["default"].get("OPTIONS", {}), "timeout": 1}
