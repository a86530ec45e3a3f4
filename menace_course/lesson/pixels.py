"""Small pictures made of coloured squares, like the lesson's picture of MENACE's games.

:func:`show_grid` takes rows of things (say ``'win'``, ``'draw'``, ``'loss'``) and a
colour for each thing, and shows every thing as a square:

* with a ``path`` ending in ``.png`` or ``.svg``, it writes that picture file;
* in a Jupyter notebook, it shows the picture below the cell;
* in a terminal, it prints coloured blocks (two rows of squares to a line);
* where colours can't be shown (output to a file or a pipe, or ``NO_COLOR`` set), it
  prints each thing's first letter instead: ``W``, ``D``, ``L``;
* inside :func:`captured_pictures`, it draws nothing and keeps the picture as data
  (``menace step`` uses this to decide where a step program's picture goes).

This module is self-contained on purpose (standard library only): ``menace start``
copies it, as ``pixels.py``, next to a step program.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import os
import struct
import sys
import zlib
from collections.abc import Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO, TypeVar

__all__ = ["NAMED_COLOURS", "png_bytes", "rgb", "show_grid", "svg_text", "terminal_text"]

RGB = tuple[int, int, int]
#: A picture as data: its rows of things, and a colour for each thing.
Picture = tuple[Sequence[Sequence[Hashable]], Mapping[Any, "str | RGB"]]

#: Colour names understood besides ``'#rrggbb'`` (the same names as in CSS and SVG).
NAMED_COLOURS: dict[str, RGB] = {
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "green": (0, 128, 0),
    "lightgray": (211, 211, 211),
    "lightgrey": (211, 211, 211),
    "gray": (128, 128, 128),
    "grey": (128, 128, 128),
    "firebrick": (178, 34, 34),
    "red": (255, 0, 0),
    "blue": (0, 0, 255),
    "orange": (255, 165, 0),
    "gold": (255, 215, 0),
    "steelblue": (70, 130, 180),
}

#: Whatever the squares stand for ('win', 'draw', 'loss' in the lesson).
Thing = TypeVar("Thing", bound=Hashable)


def rgb(colour: str | RGB) -> RGB:
    """A colour as (red, green, blue), from a name, ``'#rrggbb'``, ``'#rgb'`` or a triple."""
    if isinstance(colour, tuple):
        return colour
    text = colour.strip().lower()
    if text in NAMED_COLOURS:
        return NAMED_COLOURS[text]
    digits = text.removeprefix("#")
    if text.startswith("#") and len(digits) in (3, 6):
        if len(digits) == 3:
            digits = "".join(d * 2 for d in digits)
        try:
            red, green, blue = (int(digits[i : i + 2], 16) for i in (0, 2, 4))
        except ValueError:
            pass
        else:
            return red, green, blue
    known = ", ".join(sorted(NAMED_COLOURS))
    raise ValueError(f"unknown colour {colour!r}: use '#rrggbb' or one of {known}")


def _colour_rows(rows: Sequence[Sequence[Thing]], colours: Mapping[Thing, str | RGB]) -> list[list[RGB]]:
    try:
        return [[rgb(colours[item]) for item in row] for row in rows]
    except KeyError as missing:
        raise ValueError(f"no colour given for {missing.args[0]!r}") from None


def _size(grid: list[list[RGB]], cell: int, gap: int) -> tuple[int, int]:
    """The picture's width and height: a gap around and between all the squares."""
    columns = max((len(row) for row in grid), default=0)
    return gap + columns * (cell + gap), gap + len(grid) * (cell + gap)


def png_bytes(
    rows: Sequence[Sequence[Thing]],
    colours: Mapping[Thing, str | RGB],
    cell: int = 12,
    gap: int = 2,
) -> bytes:
    """The picture as a PNG file's bytes: squares of ``cell`` pixels, ``gap`` apart, on white."""
    grid = _colour_rows(rows, colours)
    width, height = _size(grid, cell, gap)
    white = bytes((255, 255, 255))
    lines: list[bytes] = []
    for y in range(height):
        row, inside = divmod(y - gap, cell + gap)
        pixels = bytearray(white * width)
        if y >= gap and inside < cell:
            for column, colour in enumerate(grid[row]):
                left = gap + column * (cell + gap)
                pixels[3 * left : 3 * (left + cell)] = bytes(colour) * cell
        lines.append(b"\x00" + bytes(pixels))  # filter type 0: the row as it is

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(lines), 9))
        + chunk(b"IEND", b"")
    )


def svg_text(
    rows: Sequence[Sequence[Thing]],
    colours: Mapping[Thing, str | RGB],
    cell: int = 12,
    gap: int = 2,
) -> str:
    """The picture as SVG text: one square per thing, ``cell`` units wide, ``gap`` apart."""
    grid = _colour_rows(rows, colours)
    width, height = _size(grid, cell, gap)
    squares = [
        f'<rect x="{gap + x * (cell + gap)}" y="{gap + y * (cell + gap)}" '
        f'width="{cell}" height="{cell}" fill="#{r:02x}{g:02x}{b:02x}"/>'
        for y, row in enumerate(grid)
        for x, (r, g, b) in enumerate(row)
    ]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">\n<rect width="100%" height="100%" fill="white"/>\n'
        + "\n".join(squares)
        + "\n</svg>\n"
    )


def terminal_text(
    rows: Sequence[Sequence[Thing]], colours: Mapping[Thing, str | RGB], colour: bool = True
) -> str:
    """The picture as text: coloured half blocks (ANSI 24-bit colour), or first letters."""
    if not colour:
        return "".join("".join(str(item)[:1].upper() for item in row) + "\n" for row in rows)
    grid = _colour_rows(rows, colours)
    lines = []
    for top in range(0, len(grid), 2):  # each line of text shows two rows of squares
        upper = grid[top]
        lower = grid[top + 1] if top + 1 < len(grid) else []
        cells = []
        for x, (r, g, b) in enumerate(upper):
            back = f"\x1b[48;2;{';'.join(map(str, lower[x]))}m" if x < len(lower) else ""
            cells.append(f"\x1b[38;2;{r};{g};{b}m{back}\u2580\x1b[0m")
        lines.append("".join(cells))
    return "\n".join(lines) + "\n"


def _in_notebook() -> bool:
    """True inside a Jupyter kernel (IPython's ZMQ shell), where pictures show inline."""
    if "IPython" not in sys.modules:
        return False
    shell = importlib.import_module("IPython").get_ipython()
    return type(shell).__name__ == "ZMQInteractiveShell"


def _terminal_has_colour(stream: TextIO) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR")


#: Where :func:`show_grid` keeps pictures instead of drawing them (see :func:`captured_pictures`).
_captured: contextvars.ContextVar[list[Picture] | None] = contextvars.ContextVar(
    "menace_captured_pictures", default=None
)


@contextlib.contextmanager
def captured_pictures() -> Iterator[list[Picture]]:
    """Within the ``with`` block, :func:`show_grid` keeps each picture (rows, colours) in the list."""
    pictures: list[Picture] = []
    token = _captured.set(pictures)
    try:
        yield pictures
    finally:
        _captured.reset(token)


def show_grid(
    rows: Sequence[Sequence[Thing]],
    colours: Mapping[Thing, str | RGB],
    path: str | Path | None = None,
    *,
    cell: int = 12,
    gap: int = 2,
    stream: TextIO | None = None,
) -> Path | None:
    """Show each thing in ``rows`` as a square of its colour in ``colours``.

    Args:
        rows: the rows of the picture, e.g. ``[['win', 'draw'], ['loss', 'win']]``.
        colours: a colour for every thing that appears, e.g. ``{'win': 'green', ...}``:
            a name (``'lightgray'``), ``'#rrggbb'`` or an (r, g, b) triple.
        path: write a picture file here instead; ``.png`` or ``.svg`` decides the kind.
        cell, gap: the size of a square and the space between squares, in pixels.
        stream: where terminal output goes (standard output by default).

    Returns:
        The path written, or None when the picture was shown rather than saved.
    """
    captured = _captured.get()
    if captured is not None:
        captured.append((rows, colours))
        return None
    if path is not None:
        target = Path(path)
        kind = target.suffix.lower()
        if kind == ".png":
            target.write_bytes(png_bytes(rows, colours, cell, gap))
        elif kind == ".svg":
            target.write_text(svg_text(rows, colours, cell, gap), encoding="utf-8")
        else:
            raise ValueError(f"can't write {target.name!r}: the name must end in .png or .svg")
        return target
    if _in_notebook():
        display = importlib.import_module("IPython.display")
        display.display(display.SVG(svg_text(rows, colours, cell, gap)))
        return None
    out = stream if stream is not None else sys.stdout
    out.write(terminal_text(rows, colours, colour=_terminal_has_colour(out)))
    out.flush()
    return None
