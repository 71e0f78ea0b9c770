/* The DPA programs qosbench ships (dpa/programs): one `const struct qb_dpa_program` each, and
 * a lookup by name for the runtimes. Host-side only (the registry is not part of a program). */
#ifndef QB_DPA_PROGRAMS_H
#define QB_DPA_PROGRAMS_H

#include <stdint.h>

#include "qb_dpa/device_api.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct qb_dpa_program qb_dpa_program_pcc_rtt;   /* DOCA PCC reference RTT */
extern const struct qb_dpa_program qb_dpa_program_dcqcn;     /* DCQCN reaction point */
extern const struct qb_dpa_program qb_dpa_program_reflector; /* answers RTT probes */

/* The shipped programs, in a fixed order. */
uint32_t qb_dpa_program_count(void);
const struct qb_dpa_program* qb_dpa_program_at(uint32_t index);
/* The program called `name`, or NULL. */
const struct qb_dpa_program* qb_dpa_find_program(const char* name);

#ifdef __cplusplus
}
#endif

#endif /* QB_DPA_PROGRAMS_H */
