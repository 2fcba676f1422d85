#pragma once

// English plural forms for the messages that count something ("1 call", "2 calls"): every such
// message is written once with Qt's %n ("%n call(s)") and its two English forms live in
// resources/translations/sandscope_en.ts, compiled into the core. The translator is installed
// when the QCoreApplication of any program linking the core starts (the GUI, the command line,
// the test suites), so no program can forget it.
class EnglishPlurals {
public:
    // Installs the translator once; false when the compiled forms are missing from the build.
    static bool install();
    // Whether install() has succeeded (for the tests and `--version`-like diagnostics).
    static bool installed();
};
