#ifndef HEAP_STATS_H
#define HEAP_STATS_H
#include <stddef.h>
/// Bytes of heap currently allocated by malloc (glibc mallinfo2().uordblks).
size_t indoorlab_heap_in_use(void);
#endif
