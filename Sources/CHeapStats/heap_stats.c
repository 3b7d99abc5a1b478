#include <malloc.h>
#include "heap_stats.h"

size_t indoorlab_heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks;
}
