# Writes the sandscope(1) manual page from the program's own help texts, so it cannot drift:
# help2man on `sandscope --help` / `--version`, plus a COMMAND OPTIONS section holding the
# `sandscope VERB --help` output of every verb that the top-level help lists under "Commands:".
# Then OUTPUT.gz, compressed with gzip -9n (what Debian wants). Run by cmake/Packaging.cmake:
#   cmake -DSANDSCOPE=path/to/sandscope -DHELP2MAN=help2man -DGZIP=gzip \
#         -DRELEASE_DATE="Tue, 01 Dec 2026 12:00:00 +0000" -DOUTPUT=build/packaging/sandscope.1 \
#         -P packaging/manpage.cmake
# RELEASE_DATE (the newest packaging/changelog entry) dates the page unless SOURCE_DATE_EPOCH is
# already set, so rebuilding the same release gives the same bytes.
foreach(_var SANDSCOPE HELP2MAN GZIP OUTPUT)
    if(NOT ${_var})
        message(FATAL_ERROR "manpage.cmake: -D${_var}=... is required")
    endif()
endforeach()

# The help must not need a display; offscreen in case anything ever touches a GUI platform.
set(ENV{QT_QPA_PLATFORM} offscreen)
set(ENV{LC_ALL} C.UTF-8)
if(NOT DEFINED ENV{SOURCE_DATE_EPOCH} AND RELEASE_DATE)
    execute_process(COMMAND date -u -d "${RELEASE_DATE}" +%s
        OUTPUT_VARIABLE _epoch OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
        message(FATAL_ERROR "manpage.cmake: cannot parse the release date \"${RELEASE_DATE}\"")
    endif()
    set(ENV{SOURCE_DATE_EPOCH} ${_epoch})
endif()

function(run_help out_var)
    execute_process(COMMAND ${SANDSCOPE} ${ARGN}
        OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0 OR _out STREQUAL "")
        message(FATAL_ERROR "manpage.cmake: `sandscope ${ARGN}` failed (${_rc}): ${_err}")
    endif()
    set(${out_var} "${_out}" PARENT_SCOPE)
endfunction()

# Verbatim text for roff: no escapes, no requests, ASCII hyphens and quotes stay what they are
# (so options copied from the page work).
function(roff_verbatim out_var text)
    string(REPLACE "\\" "\\e" text "${text}")
    string(REPLACE "-" "\\-" text "${text}")
    string(REPLACE "'" "\\(aq" text "${text}")
    string(REPLACE "`" "\\(ga" text "${text}")
    string(REGEX REPLACE "(^|\n)\\." "\\1\\\\&." text "${text}")
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

run_help(_top --help)
string(REGEX MATCH "\nCommands:\n(([ ]+[^\n]*\n)+)" _ "${_top}")
string(REGEX MATCHALL "\n  [a-z][a-z-]*" _verbs "\n${CMAKE_MATCH_1}")
string(REGEX REPLACE "\n  " "" _verbs "${_verbs}")
list(LENGTH _verbs _count)
if(_count LESS 1)
    message(FATAL_ERROR "manpage.cmake: no \"Commands:\" list in `sandscope --help`")
endif()

set(_include "[COMMAND OPTIONS]\n")
string(APPEND _include
    "Each command takes its own options; \\fBsandscope\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR "
    "prints them, as follows.\n")
foreach(_verb IN LISTS _verbs)
    run_help(_help ${_verb} --help)
    roff_verbatim(_text "${_help}")
    string(REGEX REPLACE "\n+$" "" _text "${_text}")
    string(APPEND _include ".SS \"sandscope ${_verb}\"\n.nf\n${_text}\n.fi\n")
endforeach()
file(WRITE ${OUTPUT}.h2m "${_include}")

execute_process(COMMAND ${HELP2MAN} --no-info --section=1
        "--name=inspect and drive Claude Code sandbox sessions in open-terminal"
        --include=${OUTPUT}.h2m --output=${OUTPUT} ${SANDSCOPE}
    RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "manpage.cmake: help2man failed (${_rc}): ${_err}")
endif()
execute_process(COMMAND ${GZIP} -9nc ${OUTPUT} OUTPUT_FILE ${OUTPUT}.gz RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "manpage.cmake: gzip failed (${_rc})")
endif()
