// Thread control: see threads.hpp.
#include "threads.hpp"

#if defined(CPUFRAME_HAVE_OPENMP)
#include <omp.h>
#endif

namespace cpuframe {

int max_threads() {
#if defined(CPUFRAME_HAVE_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

void set_threads(int n) {
#if defined(CPUFRAME_HAVE_OPENMP)
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

}  // namespace cpuframe
