#pragma once

namespace sandscope {

// For the window, before it allocates anything: freed small blocks are merged as they are
// freed instead of all at once. glibc keeps them in "fast bins" until the next large
// allocation sweeps every one of them; a run is millions of short strings, and that sweep
// took 20-60 ms at a time while a 100 MB recording loaded (bench_runopen), wherever the next
// large block happened to be asked for. Costs a little speed per free; the command line,
// which has no frames to keep, does not use it. No-op where the C library is not glibc.
void tuneAllocatorForSteadyLatency();

// Gives the pages of freed blocks back to the system. Loading a big run frees the parsed
// events between the nodes it keeps, and glibc returns none of those pages on its own: a
// 1 GB recording's run page held 940 MB, of which 450 MB in use (bench_runopen). About 10 ms
// at that size. No-op where the C library is not glibc.
void releaseFreedMemory();

} // namespace sandscope
