# Warnings and strictness for our own targets only (link sandscope_warnings PRIVATE).
option(SANDSCOPE_WERROR "Treat compiler warnings as errors" OFF)
set(SANDSCOPE_SANITIZE "" CACHE STRING "Sanitizers, e.g. address,undefined")

add_library(sandscope_warnings INTERFACE)
target_compile_options(sandscope_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual
    -Wformat=2 -Wimplicit-fallthrough)
# Qt 5's QSKIP(statement, ...) is called with one argument, which clang's -Wpedantic calls a
# GNU extension (the fuzz preset builds with clang).
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(sandscope_warnings INTERFACE -Wno-gnu-zero-variadic-macro-arguments)
endif()
if(SANDSCOPE_WERROR)
    target_compile_options(sandscope_warnings INTERFACE -Werror)
endif()
target_compile_definitions(sandscope_warnings INTERFACE
    QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_NO_URL_CAST_FROM_STRING
    QT_NO_NARROWING_CONVERSIONS_IN_CONNECT QT_USE_QSTRINGBUILDER
    QT_DISABLE_DEPRECATED_BEFORE=0x050F00
    SANDSCOPE_VERSION="${PROJECT_VERSION}")

if(SANDSCOPE_SANITIZE)
    add_compile_options(-fsanitize=${SANDSCOPE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    add_link_options(-fsanitize=${SANDSCOPE_SANITIZE})
endif()
