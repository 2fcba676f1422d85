# Install rules and CPack (.deb and .tar.gz). Included last, so every target exists here.
# scripts/package.sh builds the .deb from build/qt5 and checks it with lintian.
#
# Layout (prefix /usr in the .deb):
#   bin/sandscope                          RPATH $ORIGIN/../lib/sandscope
#   lib/sandscope/libsandscope_core.so.*   private: no development symlink, no shlibs, no ldconfig
#   lib/sandscope/sandscope-window.so      the window, loaded by `sandscope` with no verb; RPATH $ORIGIN
#   lib/sandscope/sandscope-keyring.so     QtKeychain, loaded by the core when a key is stored or read
#   share/applications, share/metainfo, share/mime/packages, share/icons/hicolor
#   share/man/man1/sandscope.1.gz          help2man on `sandscope --help` and each verb's --help
#   share/doc/sandscope/{copyright,changelog.gz}
#
# The newest entry of packaging/changelog is the single source of the release: its version must
# be the project version (so must the newest <release> of the AppStream metainfo), its trailer
# gives the Maintainer and the date stamped into the manual page.

set(_pkg_src ${CMAKE_SOURCE_DIR}/packaging)
set(_pkg_bin ${CMAKE_BINARY_DIR}/packaging)
set(SANDSCOPE_APPSTREAM_ID io.github.sandscope.sandscope)

# --- release data ------------------------------------------------------------------------------
file(READ ${_pkg_src}/changelog _changelog)
if(NOT _changelog MATCHES "^sandscope \\(([^)]+)\\)")
    message(FATAL_ERROR "packaging/changelog: the first line must be \"sandscope (VERSION) ...\"")
endif()
set(_changelog_version ${CMAKE_MATCH_1})
if(NOT _changelog MATCHES "\n -- ([^\n]+ <[^>\n]+>)  ([^\n]+)")
    message(FATAL_ERROR "packaging/changelog: no \" -- NAME <EMAIL>  DATE\" trailer")
endif()
set(SANDSCOPE_MAINTAINER "${CMAKE_MATCH_1}")
set(SANDSCOPE_RELEASE_DATE "${CMAKE_MATCH_2}")
file(READ ${_pkg_src}/${SANDSCOPE_APPSTREAM_ID}.metainfo.xml _metainfo)
string(REGEX MATCH "<release version=\"([^\"]+)\"" _ "${_metainfo}")
set(_metainfo_version "${CMAKE_MATCH_1}")
string(REGEX MATCH "<url type=\"homepage\">([^<]+)</url>" _ "${_metainfo}")
set(SANDSCOPE_HOMEPAGE "${CMAKE_MATCH_1}")
if(NOT _changelog_version STREQUAL PROJECT_VERSION OR NOT _metainfo_version STREQUAL PROJECT_VERSION)
    message(FATAL_ERROR "The project version is ${PROJECT_VERSION}, but the newest entry of "
        "packaging/changelog is ${_changelog_version} and the newest <release> of "
        "packaging/${SANDSCOPE_APPSTREAM_ID}.metainfo.xml is ${_metainfo_version}: add a release to both.")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${_pkg_src}/changelog ${_pkg_src}/${SANDSCOPE_APPSTREAM_ID}.metainfo.xml)

# --- binaries ----------------------------------------------------------------------------------
# sandscope_core stays a SHARED library (its --no-undefined link keeps Widgets out of the core),
# but nothing outside this package may link it: a private directory, found through the RPATH.
set_target_properties(sandscope PROPERTIES INSTALL_RPATH "$ORIGIN/../${SANDSCOPE_PRIVATE_LIBDIR}")
install(TARGETS sandscope RUNTIME DESTINATION bin)
install(TARGETS sandscope_core
    LIBRARY DESTINATION ${SANDSCOPE_PRIVATE_LIBDIR} NAMELINK_SKIP)
# The window (ui/launcher/windowmodule.h finds it there); libsandscope_core beside it.
set_target_properties(sandscope_window PROPERTIES INSTALL_RPATH "$ORIGIN")
install(TARGETS sandscope_window LIBRARY DESTINATION ${SANDSCOPE_PRIVATE_LIBDIR})
# The keyring (app/security/keyringmodule.h finds it next to libsandscope_core).
install(TARGETS sandscope_keyring LIBRARY DESTINATION ${SANDSCOPE_PRIVATE_LIBDIR})

# --- data files --------------------------------------------------------------------------------
install(FILES ${_pkg_src}/sandscope.desktop DESTINATION share/applications)
install(FILES ${_pkg_src}/${SANDSCOPE_APPSTREAM_ID}.metainfo.xml DESTINATION share/metainfo)
install(FILES ${_pkg_src}/sandscope-mime.xml DESTINATION share/mime/packages RENAME sandscope.xml)
install(FILES ${_pkg_src}/copyright DESTINATION share/doc/sandscope)
install(FILES ${CMAKE_SOURCE_DIR}/resources/icons/sandscope.svg
    DESTINATION share/icons/hicolor/scalable/apps)

# Generated at build time: the compressed changelog, the manual page (from the program's own
# help texts, so it cannot drift) and the PNG icons. They need help2man and rsvg-convert (Debian:
# help2man, librsvg2-bin; scripts/install-deps.sh installs them). Sanitizer builds skip them: the
# manual page runs the instrumented binary, whose leak report at exit would fail the build.
find_program(SANDSCOPE_GZIP gzip)
find_program(SANDSCOPE_HELP2MAN help2man)
find_program(SANDSCOPE_RSVG_CONVERT rsvg-convert)
set(SANDSCOPE_ICON_SIZES 16 22 24 32 48 64 128 256)
if(SANDSCOPE_SANITIZE)
    message(STATUS "Sandscope: sanitizer build, no manual page, icons or changelog for packages")
elseif(NOT SANDSCOPE_GZIP OR NOT SANDSCOPE_HELP2MAN OR NOT SANDSCOPE_RSVG_CONVERT)
    message(WARNING "Sandscope: gzip, help2man or rsvg-convert is missing (Debian: gzip help2man "
        "librsvg2-bin), so packages will lack the manual page, the PNG icons and the changelog")
else()
    set(_generated)

    add_custom_command(OUTPUT ${_pkg_bin}/changelog.gz
        COMMAND ${CMAKE_COMMAND} -E copy ${_pkg_src}/changelog ${_pkg_bin}/changelog
        COMMAND ${SANDSCOPE_GZIP} -9nf ${_pkg_bin}/changelog
        DEPENDS ${_pkg_src}/changelog
        COMMENT "Compressing the Debian changelog" VERBATIM)
    list(APPEND _generated ${_pkg_bin}/changelog.gz)

    add_custom_command(OUTPUT ${_pkg_bin}/sandscope.1.gz
        COMMAND ${CMAKE_COMMAND}
            -DSANDSCOPE=$<TARGET_FILE:sandscope> -DHELP2MAN=${SANDSCOPE_HELP2MAN}
            -DGZIP=${SANDSCOPE_GZIP} "-DRELEASE_DATE=${SANDSCOPE_RELEASE_DATE}"
            -DOUTPUT=${_pkg_bin}/sandscope.1
            -P ${_pkg_src}/manpage.cmake
        DEPENDS sandscope ${_pkg_src}/manpage.cmake ${_pkg_src}/changelog
        COMMENT "Generating the sandscope(1) manual page" VERBATIM)
    list(APPEND _generated ${_pkg_bin}/sandscope.1.gz)

    foreach(_size IN LISTS SANDSCOPE_ICON_SIZES)
        set(_png ${_pkg_bin}/icons/${_size}x${_size}/sandscope.png)
        add_custom_command(OUTPUT ${_png}
            COMMAND ${CMAKE_COMMAND} -E make_directory ${_pkg_bin}/icons/${_size}x${_size}
            COMMAND ${SANDSCOPE_RSVG_CONVERT} --width=${_size} --height=${_size}
                --keep-aspect-ratio --output=${_png} ${CMAKE_SOURCE_DIR}/resources/icons/sandscope.svg
            DEPENDS ${CMAKE_SOURCE_DIR}/resources/icons/sandscope.svg
            COMMENT "Rendering the ${_size}x${_size} icon" VERBATIM)
        list(APPEND _generated ${_png})
        install(FILES ${_png} DESTINATION share/icons/hicolor/${_size}x${_size}/apps)
    endforeach()

    add_custom_target(sandscope_package_data ALL DEPENDS ${_generated})
    install(FILES ${_pkg_bin}/changelog.gz DESTINATION share/doc/sandscope)
    install(FILES ${_pkg_bin}/sandscope.1.gz DESTINATION share/man/man1)
endif()

# --- CPack -------------------------------------------------------------------------------------
set(CPACK_PACKAGE_NAME sandscope)
set(CPACK_PACKAGE_VENDOR "Sandscope developers")
set(CPACK_PACKAGE_CONTACT "${SANDSCOPE_MAINTAINER}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${SANDSCOPE_HOMEPAGE}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR TGZ DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# Debian: extended description lines of at most 80 characters.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"Sandscope is a Qt desktop application and command line for inspecting and
driving Claude Code sandbox sessions that run inside open-terminal in
multi-user mode. It talks to the server as any chosen user (open-terminal's
X-User-Id header) and always shows whom it is acting as.

The window and the sandscope command line run commands as a user with live
output, browse and preview users' files, start and follow Claude Code runs as
a live tool-call tree, replay recorded runs, probe the isolation between users
and review cleanup plans for stale chats and sessions.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SANDSCOPE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends comes from dpkg-shlibdeps in packaging/cpack-deb.cmake, which also strips what
# `strip` leaves; CPack's own SHLIBDEPS would add ldconfig maintainer scripts for the private
# library. CPACK_SANDSCOPE_* reach the script through CPackConfig.cmake.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_SANDSCOPE_DEB_PRIVATE_DIRS usr/${SANDSCOPE_PRIVATE_LIBDIR})
set(CPACK_PRE_BUILD_SCRIPTS ${_pkg_src}/cpack-deb.cmake)
include(CPack)
