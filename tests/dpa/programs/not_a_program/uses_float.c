/* Not a program: a handler that scales a rate in floating point, which the DPA build refuses. */
#include "qb_dpa/device_api.h"

uint32_t scaled_rate(uint32_t rate) { return (uint32_t)((double)rate * 0.9); }
