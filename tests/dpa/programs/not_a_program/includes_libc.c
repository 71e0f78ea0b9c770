/* Not a program: it reaches for a libc header, which is not there for the DPA build. */
#include <string.h>

#include "qb_dpa/device_api.h"

size_t name_length(const char* name) { return strlen(name); }
