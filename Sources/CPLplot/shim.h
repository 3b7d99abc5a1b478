#include <plplot/plplot.h>
