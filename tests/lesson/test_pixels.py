"""The lesson's picture: PNG, SVG, the terminal, and Jupyter."""

from __future__ import annotations

import io
import struct
import sys
import types
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest

from menace_course.lesson.pixels import show_grid

ROWS = [["win", "draw", "loss"], ["loss", "win"]]
COLOURS = {"win": "green", "draw": "lightgray", "loss": "firebrick"}
RGB = {"win": (0, 128, 0), "draw": (211, 211, 211), "loss": (178, 34, 34)}


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = {}, 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        assert struct.unpack(">I", data[at + 8 + length : at + 12 + length])[0] == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        at += 12 + length
    width, height, depth, colour_type = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour_type) == (8, 2)
    raw = zlib.decompress(chunks[b"IDAT"])
    rows = [raw[y * (3 * width + 1) : (y + 1) * (3 * width + 1)] for y in range(height)]
    assert all(row[0] == 0 for row in rows)
    return width, height, [row[1:] for row in rows]


def test_png_has_a_square_of_the_right_colour_for_each_game(tmp_path: Path) -> None:
    path = show_grid(ROWS, COLOURS, tmp_path / "games.png", cell=10, gap=2)
    assert path == tmp_path / "games.png"
    width, height, pixels = _decode_png(path.read_bytes())
    assert (width, height) == (2 + 3 * 12, 2 + 2 * 12)
    for y, row in enumerate(ROWS):
        for x, thing in enumerate(row):
            centre_y, centre_x = 2 + y * 12 + 5, 2 + x * 12 + 5
            assert tuple(pixels[centre_y][3 * centre_x : 3 * centre_x + 3]) == RGB[thing]
    assert tuple(pixels[0][:3]) == (255, 255, 255)  # the gap is white
    assert tuple(pixels[19][3 * 31 : 3 * 32]) == (255, 255, 255)  # no third square in row 2


def test_svg_has_one_rect_per_game_with_its_colour(tmp_path: Path) -> None:
    path = show_grid(ROWS, COLOURS, tmp_path / "games.svg")
    assert path is not None
    rects = ET.parse(path).getroot().findall("{http://www.w3.org/2000/svg}rect")[1:]
    fills = [rect.get("fill") for rect in rects]
    expected = ["#{:02x}{:02x}{:02x}".format(*RGB[t]) for row in ROWS for t in row]
    assert fills == expected


def test_other_file_kinds_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        show_grid(ROWS, COLOURS, tmp_path / "games.jpg")


def test_a_thing_without_a_colour_is_named() -> None:
    with pytest.raises(ValueError, match="'draw'"):
        show_grid(ROWS, {"win": "green", "loss": "red"}, stream=Terminal())


def test_an_unknown_colour_is_named() -> None:
    with pytest.raises(ValueError, match="'greenish'"):
        show_grid(ROWS, {**COLOURS, "win": "greenish"}, stream=Terminal())


def test_without_a_terminal_each_game_is_its_first_letter() -> None:
    out = io.StringIO()
    assert show_grid(ROWS, COLOURS, stream=out) is None
    assert out.getvalue() == "WDL\nLW\n"


def test_no_color_gives_letters_even_in_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    out = Terminal()
    show_grid(ROWS, COLOURS, stream=out)
    assert out.getvalue() == "WDL\nLW\n"


def test_a_terminal_gets_two_rows_of_coloured_squares_a_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = Terminal()
    show_grid(ROWS, COLOURS, stream=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].count("\u2580") == 3
    # win above loss, draw above win, loss above nothing
    assert "\x1b[38;2;0;128;0m\x1b[48;2;178;34;34m\u2580" in lines[0]
    assert "\x1b[38;2;211;211;211m\x1b[48;2;0;128;0m\u2580" in lines[0]
    assert lines[0].endswith("\x1b[38;2;178;34;34m\u2580\x1b[0m")


def test_in_jupyter_the_picture_is_shown_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[object] = []

    class ZMQInteractiveShell:
        pass

    class SVG:
        def __init__(self, text: str) -> None:
            self.text = text

    ipython = types.ModuleType("IPython")
    ipython.get_ipython = ZMQInteractiveShell  # type: ignore[attr-defined]
    display = types.ModuleType("IPython.display")
    display.SVG = SVG  # type: ignore[attr-defined]
    display.display = shown.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    out = io.StringIO()
    show_grid(ROWS, COLOURS, stream=out)
    assert out.getvalue() == ""
    assert len(shown) == 1 and isinstance(shown[0], SVG) and shown[0].text.startswith("<svg")
