"""Running a child without root's power to read every file, so a test of an unreadable file runs
the same as root and as any other user.

Root reads a file whatever its mode (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH). `setpriv` drops both
from the bounding set before it executes the child, which then, though uid 0, is refused what the
mode refuses. Another user is refused it anyway, and could not drop a capability it lacks.
"""

from __future__ import annotations

import os

WITHOUT_DAC = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
