/* The programs qosbench ships, by index and by name (dpa/include/qb_dpa/programs.h). Host side
 * only: the runtimes look a suite's `program = "..."` up here. */
#include <stddef.h>

#include "qb_dpa/programs.h"

static const struct qb_dpa_program* const shipped_programs[] = {
    &qb_dpa_program_pcc_rtt,
    &qb_dpa_program_dcqcn,
    &qb_dpa_program_reflector,
};

#define SHIPPED_PROGRAM_COUNT (sizeof(shipped_programs) / sizeof(shipped_programs[0]))

uint32_t qb_dpa_program_count(void) {
  return (uint32_t)SHIPPED_PROGRAM_COUNT;
}

const struct qb_dpa_program* qb_dpa_program_at(uint32_t index) {
  return index < SHIPPED_PROGRAM_COUNT ? shipped_programs[index] : NULL;
}

static int names_equal(const char* left, const char* right) {
  while (*left != '\0' && *left == *right) {
    ++left;
    ++right;
  }
  return *left == *right;
}

const struct qb_dpa_program* qb_dpa_find_program(const char* name) {
  if (name == NULL) {
    return NULL;
  }
  for (uint32_t index = 0; index < SHIPPED_PROGRAM_COUNT; ++index) {
    if (names_equal(shipped_programs[index]->name, name)) {
      return shipped_programs[index];
    }
  }
  return NULL;
}
