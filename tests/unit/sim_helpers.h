/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers of the simulator tests: load a shipped scenario (scenarios/, the
 * tests run from the source tree's root), override settings, run its cases.
 */
#ifndef PGHOT_TESTS_SIM_HELPERS_H
#define PGHOT_TESTS_SIM_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

/* Load scenarios/@name.scn into @sc (after sim_scenario_init()). */
static inline void sim_test_load(struct sim_scenario *sc, const char *name)
{
	char path[256], err[512], *buf = malloc(1 << 20);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "scenarios/%s.scn", name);
	f = fopen(path, "r");
	assert_non_null(buf);
	assert_non_null(f);
	n = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	sim_scenario_init(sc);
	if (sim_scenario_parse(sc, buf, n, path, err, sizeof(err)))
		fail_msg("%s", err);
	free(buf);
}

static inline void sim_test_set(struct sim_scenario *sc, const char *key, const char *val)
{
	char err[512];

	if (sim_scenario_set(sc, key, val, err, sizeof(err)))
		fail_msg("%s = %s: %s", key, val, err);
}

/* Run every case of @sc into @r (room for SIM_MAX_CASES); returns how many. */
static inline size_t sim_test_run(const struct sim_scenario *sc, struct sim_result *r)
{
	struct sim_case c[SIM_MAX_CASES];
	char err[512];
	int n;

	if (sim_scenario_check(sc, err, sizeof(err)))
		fail_msg("check: %s", err);
	n = sim_cases(sc, c, SIM_MAX_CASES, err, sizeof(err));
	if (n < 1)
		fail_msg("cases: %s", err);
	for (int i = 0; i < n; i++)
		if (sim_run(sc, &c[i], NULL, &r[i], err, sizeof(err)))
			fail_msg("%s: %s", c[i].label, err);
	return (size_t)n;
}

static inline const struct sim_result *sim_test_find(const struct sim_result *r, size_t n,
						     const char *label, uint64_t filler)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].c.label, label) && r[i].c.filler_bytes == filler)
			return &r[i];
	fail_msg("no case %s", label);
	return NULL;
}

static inline void sim_test_free(struct sim_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sim_result_free(&r[i]);
}

#endif
