/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tests' shorthand for pghot_engine_new() with the four common options. */
#ifndef PGHOT_TESTS_ENGINE_OPTS_H
#define PGHOT_TESTS_ENGINE_OPTS_H

#include <pghot/pghot.h>

static inline struct pghot_engine *
engine_new(enum pghot_mode mode, const struct pghot_tunables *t,
	   const struct pghot_node_info *nodes, size_t nr)
{
	PGHOT_ENGINE_OPTS(o, .mode = mode, .tunables = t, .nodes = nodes,
			  .nr_nodes = nr);

	return pghot_engine_new(&o);
}

#endif
