"""``python -m tests.lti.lms``: run the test LMS in the foreground (see docs/lti.md).

    python -m tests.lti.lms --tool http://127.0.0.1:8000 --port 9001

It prints the ``menace lti add-platform`` line to register it in the tool, then serves until
Ctrl-C. Everything it holds (links, line items, scores) lives in memory.
"""

from __future__ import annotations

import argparse
import sys

from tests.lti.lms import start_platform


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.lti.lms", description=__doc__.splitlines()[0])
    parser.add_argument("--tool", default="http://127.0.0.1:8000", help="the tool's base URL (menace serve)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=9001, help="port to listen on (default 9001)")
    args = parser.parse_args(argv)
    try:
        platform = start_platform(args.tool, host=args.host, port=args.port)
    except OSError as error:
        print(f"cannot listen on {args.host}:{args.port}: {error.strerror}; try --port", file=sys.stderr)
        return 2
    print(f"Test LMS at {platform.url}/  (tool: {args.tool})")
    print("Register it in the tool with:\n")
    print(f"    {platform.state.add_platform_command()}\n")
    print("Then open the LMS page in a browser. Ctrl-C stops it.", flush=True)
    try:
        platform.thread.join()
    except KeyboardInterrupt:
        platform.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
