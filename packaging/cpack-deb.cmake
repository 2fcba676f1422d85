# CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS, set in cmake/Packaging.cmake): runs on the
# staged files, before the .deb is made from them, and does for the DEB generator what dh_strip
# and dh_shlibdeps do for a Debian source package:
#   - strips .comment and .note from every ELF file (CPACK_STRIP_FILES has already removed the
#     symbols and debug information; `strip` alone keeps these sections);
#   - sets the Depends field from dpkg-shlibdeps. CPack's own CPACK_DEBIAN_PACKAGE_SHLIBDEPS is
#     off on purpose: it also adds postinst/postrm scripts that run ldconfig whenever a library
#     lies anywhere under /usr/lib, which the private /usr/lib/sandscope does not need (lintian:
#     maintscript-calls-ldconfig).
# Other generators (TGZ) are left alone.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
    return()
endif()

set(_root "${CPACK_TEMPORARY_DIRECTORY}")
file(GLOB_RECURSE _files LIST_DIRECTORIES false RELATIVE "${_root}" "${_root}/*")
set(_elf)
foreach(_file IN LISTS _files)
    if(IS_SYMLINK "${_root}/${_file}")
        continue()
    endif()
    file(READ "${_root}/${_file}" _magic LIMIT 4 HEX)
    if(_magic STREQUAL "7f454c46")
        list(APPEND _elf "${_file}")
    endif()
endforeach()
if(NOT _elf)
    message(FATAL_ERROR "cpack-deb.cmake: no ELF files under ${_root}")
endif()

find_program(_strip NAMES strip REQUIRED)
find_program(_shlibdeps NAMES dpkg-shlibdeps REQUIRED)
foreach(_file IN LISTS _elf)
    execute_process(COMMAND "${_strip}" --remove-section=.comment --remove-section=.note "${_file}"
        WORKING_DIRECTORY "${_root}" RESULT_VARIABLE _rc ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
        message(FATAL_ERROR "cpack-deb.cmake: strip ${_file} failed: ${_err}")
    endif()
endforeach()

# dpkg-shlibdeps wants debian/control, and DEBIAN/ to resolve $ORIGIN; -l finds the private
# library in the package itself (so it needs no shlibs entry).
file(MAKE_DIRECTORY "${_root}/debian" "${_root}/DEBIAN")
file(WRITE "${_root}/debian/control" "")
set(_private)
foreach(_dir IN LISTS CPACK_SANDSCOPE_DEB_PRIVATE_DIRS)
    list(APPEND _private "-l${_dir}")
endforeach()
execute_process(COMMAND "${_shlibdeps}" ${_private} --ignore-missing-info -O ${_elf}
    WORKING_DIRECTORY "${_root}"
    OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
file(REMOVE_RECURSE "${_root}/debian" "${_root}/DEBIAN")
if(NOT _rc EQUAL 0 OR NOT _out MATCHES "shlibs:Depends=([^\n]+)")
    message(FATAL_ERROR "cpack-deb.cmake: dpkg-shlibdeps failed (${_rc}): ${_err}")
endif()
if(_err)
    message(WARNING "cpack-deb.cmake: dpkg-shlibdeps: ${_err}")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CMAKE_MATCH_1}")
message(STATUS "cpack-deb.cmake: Depends: ${CPACK_DEBIAN_PACKAGE_DEPENDS}")
