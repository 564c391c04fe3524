#!/usr/bin/env python3
"""The reference reading of one drawing, for the `drawing_numbers` bench: the text written on it as
independent readers see it, as JSON `{"text": "...", "numbers": ["12", "3.5", ...]}` on stdout.

PDF: poppler's `pdftotext -layout` (every page). DXF: ezdxf — TEXT, MTEXT (plain text), ATTRIB of
INSERTs, in model space, every paper-space layout and (through INSERTs) the blocks they use, plus
each DIMENSION's text: its override, or its measured value (`<>` in an override is the measured
value) rounded to the dimension style's DIMDEC. Tools: `apt-get install poppler-utils`,
`pip install ezdxf`. Not used by any test.
"""
import json
import math
import re
import subprocess
import sys

NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def decoded(text):
    """DXF text codes the readers leave: `\\U+0414` (a character by its code), `\\~` (a hard space)."""
    text = re.sub(r"\\U\+([0-9A-Fa-f]{4})", lambda m: chr(int(m.group(1), 16)), text)
    return text.replace("\\~", " ")


def numbers(text):
    out = []
    for match in NUMBER.finditer(text):
        out.append(normalise(match.group(0)))
    return out


def normalise(number):
    number = number.replace(",", ".")
    if "." in number:
        number = number.rstrip("0").rstrip(".")
    return number.lstrip("0") or "0"


def pdf(path):
    return subprocess.run(
        ["pdftotext", "-layout", path, "-"], capture_output=True, text=True, check=False
    ).stdout


def dxf(path):
    import ezdxf
    from ezdxf import recover

    try:
        doc = ezdxf.readfile(path)
    except Exception:
        doc, _ = recover.readfile(path)
    texts = []

    def visit(entity, depth=0):
        kind = entity.dxftype()
        try:
            if kind == "TEXT" or kind == "ATTRIB":
                if not entity.is_invisible if hasattr(entity, "is_invisible") else True:
                    texts.append(entity.plain_text())
            elif kind == "MTEXT":
                texts.append(entity.plain_text())
            elif kind == "DIMENSION":
                texts.append(dimension_text(doc, entity))
            elif kind == "INSERT" and depth < 16:
                for attrib in entity.attribs:
                    visit(attrib, depth + 1)
                block = doc.blocks.get(entity.dxf.name)
                if block is not None:
                    for child in block:
                        if child.dxftype() != "ATTDEF":
                            visit(child, depth + 1)
        except Exception as error:  # a damaged entity: its text is not counted
            print(f"skipped {kind}: {error}", file=sys.stderr)

    for layout in doc.layouts:
        for entity in layout:
            visit(entity)
    return "\n".join(t for t in texts if t)


def dimension_text(doc, dim):
    override = dim.dxf.get("text", "")
    if override and override != "<>" and "<>" not in override:
        return override
    try:
        measured = dim.get_measurement()
    except Exception:
        return override.replace("<>", "")
    if hasattr(measured, "magnitude"):
        measured = measured.magnitude
    kind = dim.dimtype & 7
    if kind in (2, 5):  # angular: degrees
        measured = math.degrees(measured) if measured < 2 * math.pi + 1e-9 else measured
    style = doc.dimstyles.get(dim.dxf.get("dimstyle", "Standard"))
    decimals = 2
    if style is not None:
        decimals = style.dxf.get("dimdec", 2)
    overrides = dim.dim_style_attributes() if hasattr(dim, "dim_style_attributes") else None
    try:
        decimals = dim.get_dim_style_attr("dimdec", decimals) if hasattr(dim, "get_dim_style_attr") else decimals
    except Exception:
        pass
    value = f"{measured:.{decimals}f}"
    return override.replace("<>", value) if "<>" in override else value


def main():
    path = sys.argv[1]
    text = pdf(path) if path.lower().endswith(".pdf") else decoded(dxf(path))
    json.dump({"text": text, "numbers": numbers(text)}, sys.stdout)


if __name__ == "__main__":
    main()
