"""Healthy when something listens on the TCP port given (default 2087), read from /proc.

The raggin TCP server serves one connection and stops when it closes, so the probe must not
connect: it looks for a LISTEN socket (state 0A) on the port in /proc/net/tcp{,6} instead.
"""

import sys
from pathlib import Path

LISTEN = "0A"


def listening(port: int, tables: tuple[str, ...] = ("/proc/net/tcp", "/proc/net/tcp6")) -> bool:
    wanted = f":{port:04X}"
    for table in tables:
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 3 and fields[1].endswith(wanted) and fields[3] == LISTEN:
                return True
    return False


if __name__ == "__main__":
    sys.exit(0 if listening(int(sys.argv[1]) if len(sys.argv) > 1 else 2087) else 1)
