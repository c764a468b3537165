/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The loop's chores that are neither a source nor a worker, behind two
 * calls from daemon_run(): the THP mappings of the targets, read a bounded
 * share per turn (thp_rescan.h); control socket clients idle too long
 * (ctlsrv.h); the kernel's own promoter and demoter (coexist.h).
 */
#ifndef PGHOT_CMD_PGHOTD_CHORES_H
#define PGHOT_CMD_PGHOTD_CHORES_H

#include <stdint.h>

struct daemon;

/**
 * chores_next_ms() - when the chores want the loop to run next.
 * @now: CLOCK_MONOTONIC ms; @next: the loop's earliest deadline so far.
 * Return: @next, or an earlier time (@now: work is pending).
 */
uint64_t chores_next_ms(const struct daemon *d, uint64_t now, uint64_t next);

/** chores_run() - do what is due; each chore bounds its own work. */
void chores_run(struct daemon *d, uint64_t now);

/** chores_release() - free what the chores hold (at teardown). */
void chores_release(struct daemon *d);

#endif
