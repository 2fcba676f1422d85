#!/usr/bin/env bash
# Brings resources/translations/sandscope_en.ts in step with the sources: every message that
# counts with Qt's %n ("%n call(s)") gets its two English forms, "1 call" and "%n calls".
# Regular nouns are filled in here ("(s)", "(es)"); anything else is left unfinished for a
# person to write, and tst_translations fails until it is. Run after adding or changing a %n
# message:   scripts/update-translations.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ts="$here/resources/translations/sandscope_en.ts"
lupdate=
for candidate in /usr/lib/qt5/bin/lupdate /usr/lib/qt6/bin/lupdate lupdate; do
  if command -v "$candidate" >/dev/null; then lupdate=$(command -v "$candidate"); break; fi
done
[ -n "$lupdate" ] || { echo "lupdate not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
# Only the messages with plural forms; obsolete ones are dropped.
"$lupdate" -silent -pluralonly -no-obsolete -locations none -source-language en \
  -target-language en "$here/app" "$here/cli" "$here/ui" -ts "$ts"
python3 "$here/scripts/fill-english-plurals.py" "$ts"
