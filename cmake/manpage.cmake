# cmake -DTFG=<binary> -DVERSION=<x.y.z> -DOUT=<tfg.1> -P cmake/manpage.cmake
# Writes the man page from `tfg --help`, so the two never disagree: the
# usage block becomes SYNOPSIS, each unindented "heading:" line a section,
# and the rest is kept as laid out (no-fill), escaped for roff.
execute_process(COMMAND ${TFG} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR help STREQUAL "")
  message(FATAL_ERROR "manpage.cmake: `${TFG} --help` failed (${rc}): ${err}")
endif()

# roff: a backslash is \e; a line starting with . or ' would be a request.
string(REPLACE "\\" "\\e" help "${help}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
# One list element a line; the text's own semicolons are kept aside.
string(REPLACE ";" "@SEMICOLON@" help "${help}")
string(REPLACE "\n" ";" lines "${help}")

string(TIMESTAMP today "%Y-%m-%d" UTC)
set(page ".TH TFG 1 \"${today}\" \"tfg ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\ntfg \\- interpreter for a TensorFlow 1.x-style dataflow graph language\n")
string(APPEND page ".SH SYNOPSIS\n.nf\n")
set(in_synopsis TRUE)
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z][A-Za-z ]*):$")
    string(TOUPPER "${CMAKE_MATCH_1}" title)
    string(APPEND page ".fi\n.SH ${title}\n.nf\n")
    set(in_synopsis FALSE)
  elseif(line MATCHES "^usage: (.*)$")
    string(APPEND page "${CMAKE_MATCH_1}\n")
  elseif(in_synopsis AND line MATCHES "^       (.*)$")  # under "usage: "
    string(APPEND page "${CMAKE_MATCH_1}\n")
  else()
    string(APPEND page "${line}\n")
  endif()
endforeach()
string(APPEND page ".fi\n.SH FILES\n.TP\n.I <prefix>/share/tfg/stdlib\n")
string(APPEND page "the standard library (import nn, data, metrics, ...); TFG_STDLIB_DIR overrides it\n")
string(APPEND page ".TP\n.I <prefix>/share/tfg/examples\nexample scripts\n")
string(APPEND page ".SH SEE ALSO\nThe user documentation in <prefix>/share/doc/tfg (README.md, docs/).\n")
string(REPLACE "@SEMICOLON@" ";" page "${page}")
file(WRITE "${OUT}" "${page}")
