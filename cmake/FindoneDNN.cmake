# FindoneDNN
# ----------
# Locates oneDNN v3 and provides the imported target DNNL::dnnl.
#
# Where it looks, first hit wins:
#   1. oneDNN_ROOT (CMake or environment variable): the prefix of a user's own oneDNN.
#   2. The onednn-devel-cpu-gomp wheel of the build's Python. pip's isolated build
#      installs it into an overlay that is not on CMAKE_PREFIX_PATH, so the Python
#      is asked (importlib.metadata) where the wheel's dnnl.hpp is; the library
#      itself comes from the onednn-cpu-gomp runtime wheel.
#   3. The usual system locations.
# A prefix that ships dnnl-config.cmake is used through it; otherwise a plain
# header/library search creates DNNL::dnnl.
#
# Sets oneDNN_FOUND, oneDNN_VERSION, oneDNN_INCLUDE_DIR and oneDNN_LIBRARY.

include(FindPackageHandleStandardArgs)

set(_onednn_prefixes "")
set(_onednn_libdirs "")

if(oneDNN_ROOT)
  list(APPEND _onednn_prefixes "${oneDNN_ROOT}")
elseif(DEFINED ENV{oneDNN_ROOT})
  list(APPEND _onednn_prefixes "$ENV{oneDNN_ROOT}")
else()
  set(_onednn_python "")
  foreach(_var IN ITEMS Python_EXECUTABLE Python3_EXECUTABLE PYTHON_EXECUTABLE)
    if(${_var})
      set(_onednn_python "${${_var}}")
      break()
    endif()
  endforeach()
  if(_onednn_python)
    # Prints two lines: the devel wheel's dnnl.hpp and the runtime wheel's library
    # (an empty line for a wheel that is not installed).
    set(_onednn_query [=[
import importlib.metadata as md

def locate(dist, suffix):
    try:
        files = md.distribution(dist).files or ()
    except md.PackageNotFoundError:
        return ""
    for f in files:
        if f.as_posix().endswith(suffix):
            return str(f.locate().resolve())
    return ""

print(locate("onednn-devel-cpu-gomp", "include/oneapi/dnnl/dnnl.hpp"))
print(locate("onednn-cpu-gomp", "lib/libdnnl.so.3"))
]=])
    execute_process(
      COMMAND "${_onednn_python}" -c "${_onednn_query}"
      OUTPUT_VARIABLE _onednn_out
      RESULT_VARIABLE _onednn_rc
      ERROR_QUIET)
    if(_onednn_rc EQUAL 0)
      string(REPLACE "\n" ";" _onednn_lines "${_onednn_out}")
      list(LENGTH _onednn_lines _onednn_n)
      if(_onednn_n GREATER_EQUAL 2)
        list(GET _onednn_lines 0 _onednn_header)
        list(GET _onednn_lines 1 _onednn_runtime_lib)
        if(_onednn_header)
          # <prefix>/include/oneapi/dnnl/dnnl.hpp -> <prefix>
          get_filename_component(_onednn_prefix "${_onednn_header}" DIRECTORY)
          get_filename_component(_onednn_prefix "${_onednn_prefix}/../../.." ABSOLUTE)
          list(APPEND _onednn_prefixes "${_onednn_prefix}")
        endif()
        if(_onednn_runtime_lib)
          get_filename_component(_onednn_libdir "${_onednn_runtime_lib}" DIRECTORY)
          list(APPEND _onednn_libdirs "${_onednn_libdir}")
        endif()
      endif()
    endif()
  endif()
endif()

# The package config aborts the configure step if its library is missing, so
# only prefixes that hold both the config and a library are offered to it.
foreach(_prefix IN LISTS _onednn_prefixes)
  file(GLOB _onednn_configs "${_prefix}/lib*/cmake/dnnl/dnnl-config.cmake")
  file(GLOB _onednn_libs "${_prefix}/lib*/libdnnl.so*" "${_prefix}/lib*/libdnnl*.dylib"
       "${_prefix}/lib*/dnnl.lib")
  if(_onednn_configs AND _onednn_libs)
    find_package(dnnl CONFIG QUIET PATHS "${_prefix}" NO_DEFAULT_PATH)
    if(TARGET DNNL::dnnl)
      break()
    endif()
  endif()
endforeach()

if(TARGET DNNL::dnnl)
  get_target_property(_onednn_incs DNNL::dnnl INTERFACE_INCLUDE_DIRECTORIES)
  find_path(oneDNN_INCLUDE_DIR oneapi/dnnl/dnnl.hpp PATHS ${_onednn_incs} NO_DEFAULT_PATH)
  foreach(_prop IN ITEMS IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_RELWITHDEBINFO
                         IMPORTED_LOCATION IMPORTED_LOCATION_DEBUG)
    get_target_property(_onednn_loc DNNL::dnnl ${_prop})
    if(_onednn_loc)
      set(oneDNN_LIBRARY "${_onednn_loc}" CACHE FILEPATH "oneDNN library")
      break()
    endif()
  endforeach()
else()
  find_path(oneDNN_INCLUDE_DIR oneapi/dnnl/dnnl.hpp
    HINTS ${_onednn_prefixes}
    PATH_SUFFIXES include)
  find_library(oneDNN_LIBRARY NAMES dnnl libdnnl.so.3
    HINTS ${_onednn_libdirs} ${_onednn_prefixes}
    PATH_SUFFIXES lib lib64)
endif()

if(oneDNN_INCLUDE_DIR AND EXISTS "${oneDNN_INCLUDE_DIR}/oneapi/dnnl/dnnl_version.h")
  file(STRINGS "${oneDNN_INCLUDE_DIR}/oneapi/dnnl/dnnl_version.h" _onednn_version_lines
       REGEX "#define DNNL_VERSION_(MAJOR|MINOR|PATCH) ")
  foreach(_part IN ITEMS MAJOR MINOR PATCH)
    string(REGEX MATCH "DNNL_VERSION_${_part} ([0-9]+)" _ "${_onednn_version_lines}")
    set(_onednn_${_part} "${CMAKE_MATCH_1}")
  endforeach()
  set(oneDNN_VERSION "${_onednn_MAJOR}.${_onednn_MINOR}.${_onednn_PATCH}")
endif()

find_package_handle_standard_args(oneDNN
  REQUIRED_VARS oneDNN_LIBRARY oneDNN_INCLUDE_DIR
  VERSION_VAR oneDNN_VERSION
  REASON_FAILURE_MESSAGE
    "Install onednn-devel-cpu-gomp==2023.2.0 for the build's Python (pip's isolated build does this), or set oneDNN_ROOT to the prefix of a oneDNN v3 install.")

if(oneDNN_FOUND AND NOT TARGET DNNL::dnnl)
  add_library(DNNL::dnnl SHARED IMPORTED)
  set_target_properties(DNNL::dnnl PROPERTIES
    IMPORTED_LOCATION "${oneDNN_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${oneDNN_INCLUDE_DIR}")
endif()

mark_as_advanced(oneDNN_INCLUDE_DIR oneDNN_LIBRARY)
