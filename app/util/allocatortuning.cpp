#include "allocatortuning.h"

#include <cstdlib> // defines __GLIBC__ on glibc

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace sandscope {

void tuneAllocatorForSteadyLatency()
{
#ifdef __GLIBC__
    mallopt(M_MXFAST, 0); // no fast bins
#endif
}

void releaseFreedMemory()
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

} // namespace sandscope
