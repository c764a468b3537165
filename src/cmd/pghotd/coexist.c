// SPDX-License-Identifier: GPL-2.0-or-later
/* pghotd beside the kernel's NUMA balancing and demotion; see coexist.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"

static bool refusing(const struct daemon *d)
{
	return d->cfg.kernel_tiering == CFG_KERNEL_TIERING_REFUSE;
}

bool coexist_pghot_demotes(const struct pghotd_config *c)
{
	return c->demote_enabled ||
	       (c->execution == PGHOTD_EXEC_DAMOS && c->damos.demote_MBps);
}

void coexist_describe(const struct pghotd_config *c, const struct kmovers *k,
		      unsigned int bit, char *buf, size_t len)
{
	if (bit == KMOVERS_TWO_DEMOTERS && c->execution == PGHOTD_EXEC_DAMOS)
		snprintf(buf, len,
			 "demotion_enabled is true (%.600s) and execution = damos demotes with migrate_cold: kswapd demotes top-tier pages at reclaim too, blind to the free-memory goal; use one: set [damos] demote_MBps = 0, or write false to demotion_enabled",
			 k->demotion_path);
	else
		kmovers_describe(k, bit, buf, len);
}

/* Say the conflicts of @k that @old did not have. */
static void say_new(struct daemon *d, const struct kmovers *k, unsigned int bits,
		    unsigned int old)
{
	char msg[1024];

	for (unsigned int b = 1; b <= KMOVERS_KERNEL_DEMOTES; b <<= 1) {
		if (!(bits & b) || (old & b))
			continue;
		coexist_describe(&d->cfg, k, b, msg, sizeof(msg));
		if (b == KMOVERS_KERNEL_DEMOTES)
			log_info("%s", msg);
		else if (refusing(d))
			log_err("%s (kernel_tiering = refuse; kernel_tiering = warn starts with a warning)",
				msg);
		else
			log_warn("%s", msg);
	}
}

/* Say the conflicts of @old that ended. */
static void say_ended(const struct kmovers *k, unsigned int bits,
		      unsigned int old)
{
	const unsigned int promoters = KMOVERS_NUMAB_TIERING | KMOVERS_NUMAB_NORMAL;

	if ((old & promoters) && !(bits & promoters))
		log_info("kernel.numa_balancing is %d (%s) again: pghotd is the only promoter",
			 k->numa_balancing, k->numa_balancing_path);
	if ((old & KMOVERS_TWO_DEMOTERS) && !(bits & KMOVERS_TWO_DEMOTERS))
		log_info("one demoter again: demotion_enabled is %s (%s)%s",
			 k->demotion == 1 ? "true" : k->demotion == 0 ? "false" : "absent",
			 k->demotion_path,
			 k->demotion == 1 ? ", pghotd does not demote" : "");
}

/* Read and compare. Return: true if a conflict stands and kernel_tiering
 * is refuse (also one that was only warned about before a reload made it
 * refuse). */
static bool check(struct daemon *d)
{
	struct coexist *c = &d->coexist;
	struct kmovers k;
	unsigned int bits, old;
	int err;

	err = kmovers_read(d->cfg.procfs_root, d->cfg.sysfs_root, &k);
	if (err) {
		if (!c->read_failed)
			log_warn("cannot read kernel.numa_balancing (%s) or demotion_enabled (%s): %s; not checking for a second promoter or demoter until they read again",
				 k.numa_balancing_path, k.demotion_path, strerror(-err));
		c->read_failed = true;
		return false;
	}
	c->read_failed = false;
	bits = kmovers_conflicts(&k, coexist_pghot_demotes(&d->cfg));
	old = c->bits;
	/* a changed value of a standing conflict is a new one (1 -> 2) */
	if (k.numa_balancing != c->last.numa_balancing)
		old &= ~(unsigned int)(KMOVERS_NUMAB_TIERING | KMOVERS_NUMAB_NORMAL);
	say_new(d, &k, bits, old);
	say_ended(&k, bits, c->bits);
	c->last = k;
	c->bits = bits;
	return refusing(d) && (bits & KMOVERS_CONFLICTS);
}

int coexist_start(struct daemon *d)
{
	memset(&d->coexist, 0, sizeof(d->coexist));
	d->coexist.last.numa_balancing = d->coexist.last.demotion = -1;
	if (check(d))
		return -EBUSY;
	d->coexist.next_ms = d->now + COEXIST_CHECK_MS;
	return 0;
}

void coexist_tick(struct daemon *d, uint64_t now)
{
	if (now < d->coexist.next_ms)
		return;
	d->coexist.next_ms = now + COEXIST_CHECK_MS;
	if (check(d) && !d->stop) {
		log_err("stopping: the kernel moves pages between tiers too (kernel_tiering = refuse)");
		d->stop = true;
		d->exit_err = -EBUSY;
	}
}
