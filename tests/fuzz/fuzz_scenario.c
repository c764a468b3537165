// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: pghot sim's scenario parser and whole-scenario check, and
 * the case expansion of what they accept. Corpus: tests/fuzz/corpus/scenario/
 * (the shipped scenarios and broken variants). */
#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sim_scenario sc;
	static struct sim_case cases[SIM_MAX_CASES];
	char err[512];
	int n;

	sim_scenario_init(&sc);
	if (sim_scenario_parse(&sc, (const char *)data, size, "fuzz", err, sizeof(err)))
		return 0;
	if (!(sc.scale > 0 && sc.scale <= 1) || sc.m.nr_nodes < 1 || sc.m.nr_nodes > SIM_MAX_NODES)
		__builtin_trap();
	if (sim_scenario_check(&sc, err, sizeof(err)))
		return 0;
	n = sim_cases(&sc, cases, SIM_MAX_CASES, err, sizeof(err));
	if (n < 1 || n > SIM_MAX_CASES)
		__builtin_trap();
	for (int i = 0; i < n; i++)
		if (cases[i].policy < 0 || cases[i].policy >= SIM_POL_MAX)
			__builtin_trap();
	return 0;
}
