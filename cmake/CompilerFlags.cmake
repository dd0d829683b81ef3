# Shared compile settings for cpuframe's native targets.

# C++17, warnings on, -O3 in Release, and only the module init symbol exported.
function(cpuframe_target_defaults target)
  set_target_properties(${target} PROPERTIES
    CXX_STANDARD 17
    CXX_STANDARD_REQUIRED ON
    CXX_EXTENSIONS OFF
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
  )
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra $<$<CONFIG:Release>:-O3>)
  elseif(MSVC)
    target_compile_options(${target} PRIVATE /W4 $<$<CONFIG:Release>:/O2>)
  endif()
endfunction()
