/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pghotd beside the kernel's own movers (linux/kernel_movers.h): the knobs
 * are read at start and every COEXIST_CHECK_MS; each conflict is logged
 * once when it appears (a warning, or with [system] kernel_tiering =
 * refuse an error: no start, or a stop with exit status 1) and once when
 * it ends.
 */
#ifndef PGHOT_CMD_PGHOTD_COEXIST_H
#define PGHOT_CMD_PGHOTD_COEXIST_H

#include <stdbool.h>
#include <stdint.h>

#include "linux/kernel_movers.h"

#define COEXIST_CHECK_MS 2000

struct coexist {
	struct kmovers last;		/* as last read */
	unsigned int bits;		/* KMOVERS_* of @last */
	bool read_failed;		/* the last read failed (said once) */
	uint64_t next_ms;
};

struct daemon;
struct pghotd_config;

/**
 * coexist_pghot_demotes() - does pghotd demote under @c: [demotion]
 * enabled, or migrate_cold in execution = damos (demote_MBps > 0)?
 */
bool coexist_pghot_demotes(const struct pghotd_config *c);

/**
 * coexist_describe() - kmovers_describe() for @c's way of demoting (the two
 * demoters of execution = damos are DAMOS migrate_cold and the kernel's).
 */
void coexist_describe(const struct pghotd_config *c, const struct kmovers *k,
		      unsigned int bit, char *buf, size_t len);

/**
 * coexist_start() - read the knobs and say what conflicts.
 * Return: 0, or -EBUSY (logged) if a conflict stands and kernel_tiering is
 * refuse.
 */
int coexist_start(struct daemon *d);

/** coexist_tick() - the periodic check; a refused conflict sets
 * d->stop and d->exit_err. */
void coexist_tick(struct daemon *d, uint64_t now);

#endif
