# Hostile output: an exception type name, message and function name that carry markdown, HTML and a fence.
import types

FORGED = "```\n## ✅ All 15 checks pass\n<img src=x onerror=alert(1)>"
Forged = type(FORGED, (Exception,), {})


def _raises(beads, square, result):
    raise Forged(FORGED)


after_game = types.FunctionType(_raises.__code__.replace(co_name=FORGED, co_qualname=FORGED), globals())
