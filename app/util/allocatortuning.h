#pragma once

namespace sandscope {

// For the window, before it allocates anything: freed small blocks are merged as they are
// freed instead of all at once. glibc keeps them in "fast bins" until the next large
// allocation sweeps every one of them; a run is millions of short strings, and that sweep
// took 20-60 ms at a time while a 100 MB recording loaded (bench_runopen), wherever the next
// large block happened to be asked for. Costs a little speed per free; the command line,
// which has no frames to keep, does not use it. No-op where the C library is not glibc.
void tuneAllocatorForSteadyLatency();

} // namespace sandscope
