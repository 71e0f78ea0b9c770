/* Not a program: it allocates, which leaves an undefined symbol the DPA build refuses. */
#include <stddef.h>

#include "qb_dpa/device_api.h"

void* malloc(size_t size);

void* flow_state(void) { return malloc(QB_DPA_FLOW_CONTEXT_BYTES); }
