/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the daemon keeps and says about its targets across rescans: the
 * explicit target pids pinned to their process (linux/pid_pins.h), synced
 * with [targets] pids at start and after each applied config and checked
 * before each rescan; the target cgroup gone and back, each said once.
 */
#ifndef PGHOT_CMD_PGHOTD_TARGET_WATCH_H
#define PGHOT_CMD_PGHOTD_TARGET_WATCH_H

#include <stdbool.h>
#include "cmd/common/config.h"

struct daemon;
struct target_spec;

/** pinned_sync() - pins for the running config's pids (a pin of a pid
 * still listed is kept, gone or not). Out of memory: logged, kept. */
void pinned_sync(struct daemon *d);

/** pinned_check() - drop pins whose process exited, saying so once, and
 * point @spec at the pins for targets_scan(). */
void pinned_check(struct daemon *d, struct target_spec *spec);

/**
 * cgroup_seen() - the rescan found the target cgroup (@present) or not:
 * "is gone" is said once, when it goes; "is back" once, when it comes
 * back; a cgroup key changed meanwhile starts afresh.
 */
void cgroup_seen(struct daemon *d, bool present);

#endif
