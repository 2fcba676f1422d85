# Chooses the Qt major version and finds KSyntaxHighlighting, QtWebSockets and QTermWidget.
#   SANDSCOPE_QT_MAJOR=auto (default): Qt 6 when Qt 6 *and* KF6 SyntaxHighlighting are both
#   installed, otherwise Qt 5.15 + KF5 (what Debian 12 / Ubuntu 24.04 package).
#   SANDSCOPE_QT_MAJOR=5 or 6 forces one; Qt 6 without KF6 builds with plain-text previews.
#   QtWebSockets is required (the core's terminal transport). QTermWidget (the Terminal tab's
#   emulator) is optional: qtermwidget5 for Qt 5 (Debian: libqtermwidget5-1-dev), qtermwidget6
#   for Qt 6 when a Qt 6 build of it is installed (Debian 12 has none); without it the tab says
#   why it is missing and offers the Console.
set(SANDSCOPE_QT_MAJOR "auto" CACHE STRING "Qt major version: auto, 5 or 6")
set_property(CACHE SANDSCOPE_QT_MAJOR PROPERTY STRINGS auto 5 6)

if(SANDSCOPE_QT_MAJOR STREQUAL "auto")
    find_package(Qt6 6.2 QUIET COMPONENTS Core)
    find_package(KF6SyntaxHighlighting QUIET)
    if(Qt6_FOUND AND KF6SyntaxHighlighting_FOUND)
        set(_qt_major 6)
    else()
        set(_qt_major 5)
    endif()
else()
    set(_qt_major ${SANDSCOPE_QT_MAJOR})
endif()
if(NOT _qt_major MATCHES "^[56]$")
    message(FATAL_ERROR "SANDSCOPE_QT_MAJOR must be auto, 5 or 6 (got ${SANDSCOPE_QT_MAJOR})")
endif()

set(QT_VERSION_MAJOR ${_qt_major})
set(QT Qt${_qt_major})
if(_qt_major EQUAL 5)
    find_package(Qt5 5.15 REQUIRED COMPONENTS Core Network WebSockets Gui Widgets Svg Test Pdf PdfWidgets)
    find_package(qtermwidget5 QUIET)
    set(_qtermwidget_target qtermwidget5)
    find_package(KF5SyntaxHighlighting QUIET)
    set(_ksh_target KF5::SyntaxHighlighting)
    find_package(Qt5Keychain QUIET)
    set(_keychain_target qt5keychain)
else()
    find_package(Qt6 6.2 REQUIRED COMPONENTS Core Network WebSockets Gui Widgets Svg Test Pdf PdfWidgets)
    find_package(qtermwidget6 QUIET)
    set(_qtermwidget_target qtermwidget6)
    find_package(KF6SyntaxHighlighting QUIET)
    set(_ksh_target KF6::SyntaxHighlighting)
    find_package(Qt6Keychain QUIET)
    set(_keychain_target qt6keychain)
endif()

if(TARGET ${_ksh_target})
    set(SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING ON)
    set(SANDSCOPE_KSH_TARGET ${_ksh_target})
else()
    set(SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING OFF)
endif()
# Debian 12's libqtermwidget5-1-dev links libutf8proc.so without depending on libutf8proc-dev
# (scripts/install-deps.sh installs both): refuse a target whose libraries are missing.
if(TARGET ${_qtermwidget_target})
    get_target_property(_qtw_libs ${_qtermwidget_target} INTERFACE_LINK_LIBRARIES)
    foreach(_lib IN LISTS _qtw_libs)
        if(IS_ABSOLUTE "${_lib}" AND NOT EXISTS "${_lib}")
            message(WARNING "QTermWidget needs ${_lib}, which is missing (Debian: libutf8proc-dev); "
                "building without the Terminal tab's emulator")
            set(_qtw_broken ON)
        endif()
    endforeach()
endif()
if(TARGET ${_qtermwidget_target} AND NOT _qtw_broken)
    set(SANDSCOPE_HAVE_QTERMWIDGET ON)
    set(SANDSCOPE_QTERMWIDGET_TARGET ${_qtermwidget_target})
else()
    set(SANDSCOPE_HAVE_QTERMWIDGET OFF)
endif()
if(NOT TARGET ${_keychain_target})
    message(FATAL_ERROR "QtKeychain for Qt ${_qt_major} not found (qt${_qt_major}keychain-dev / qtkeychain-qt6-dev)")
endif()
set(SANDSCOPE_KEYCHAIN_TARGET ${_keychain_target})
message(STATUS "Sandscope: Qt ${_qt_major}, KSyntaxHighlighting: ${SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING}, "
    "QTermWidget: ${SANDSCOPE_HAVE_QTERMWIDGET}")
