# Writes OUT (a header defining IMPACT_GIT_REV) with the source tree's git revision, "-dirty" when
# tracked files differ from HEAD, "unknown" outside git. Run at every build (see CMakeLists.txt);
# the file is rewritten only when the text changes, so an unchanged revision rebuilds nothing.
execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY "${SRC}"
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT rev)
  set(rev unknown)
else()
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY "${SRC}" RESULT_VARIABLE dirty ERROR_QUIET)
  if(NOT dirty EQUAL 0)
    set(rev "${rev}-dirty")
  endif()
endif()
set(content "#define IMPACT_GIT_REV \"${rev}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
