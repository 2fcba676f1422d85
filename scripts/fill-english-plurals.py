#!/usr/bin/env python3
"""Fills the English forms of unfinished %n messages in a Qt .ts file whose nouns are regular:
"(s)" and "(es)" become "" in the singular and "s"/"es" in the plural. Messages with another
shape keep their unfinished state (tst_translations then names them).
  scripts/fill-english-plurals.py resources/translations/sandscope_en.ts"""
import re
import sys
import xml.etree.ElementTree as ET

SUFFIX = re.compile(r"\((e?s)\)")


def forms(source):
    if not SUFFIX.search(source):
        return None
    return SUFFIX.sub("", source), SUFFIX.sub(lambda m: m.group(1), source)


def main(path):
    tree = ET.parse(path)
    filled = left = 0
    for message in tree.iter("message"):
        if message.get("numerus") != "yes":
            continue
        translation = message.find("translation")
        if translation is None or translation.get("type") != "unfinished":
            continue
        pair = forms(message.findtext("source", ""))
        if pair is None:
            left += 1
            continue
        for child in list(translation):
            translation.remove(child)
        for text in pair:
            ET.SubElement(translation, "numerusform").text = text
        del translation.attrib["type"]
        filled += 1
    tree.write(path, encoding="utf-8", xml_declaration=True)
    with open(path, "r+", encoding="utf-8") as f:  # lupdate's doctype, kept for Linguist
        text = f.read()
        if "<!DOCTYPE TS>" not in text:
            text = text.replace("?>\n", "?>\n<!DOCTYPE TS>\n", 1)
        f.seek(0)
        f.write(text if text.endswith("\n") else text + "\n")
        f.truncate()
    print(f"fill-english-plurals: {filled} filled, {left} left for a person")


if __name__ == "__main__":
    main(sys.argv[1])
