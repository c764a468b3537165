/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's explicit target pids pinned to their process
 * (linux/pid_pins.h): synced with [targets] pids at start and after each
 * applied config, checked before each target rescan.
 */
#ifndef PGHOT_CMD_PGHOTD_PINNED_H
#define PGHOT_CMD_PGHOTD_PINNED_H

struct daemon;
struct target_spec;

/** pinned_sync() - pins for the running config's pids (a pin of a pid
 * still listed is kept, gone or not). Out of memory: logged, kept. */
void pinned_sync(struct daemon *d);

/** pinned_check() - drop pins whose process exited, saying so once, and
 * point @spec at the pins for targets_scan(). */
void pinned_check(struct daemon *d, struct target_spec *spec);

#endif
