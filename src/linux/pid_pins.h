/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Explicit target pids ([targets] pids = N) pinned to the process each
 * named when pghotd first saw it: its start time (field 22 of
 * /proc/PID/stat, which a reused pid does not share) and, on a real /proc
 * with Linux 5.3+, a pidfd (pidfd_open(2)), which refers to that process
 * and no other for as long as it is open. Once the process exits (or is a
 * zombie: its memory is gone) the pin is gone for good: a process that
 * gets the number later is not the one the configuration named.
 */
#ifndef PGHOT_LINUX_PID_PINS_H
#define PGHOT_LINUX_PID_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pid_pin {
	pid_t pid;
	uint64_t start_time;		/* of the pinned process */
	char comm[16];			/* its comm when pinned, raw bytes */
	int pidfd;			/* -1: none (fake procfs, old kernel) */
	bool gone;			/* exited: never adopted again */
};

struct pid_pins {
	struct pid_pin *v;
	size_t n;
};

/**
 * pidpins_sync() - make @p the pins of @pids: pins of pids no longer
 * listed go, pins of pids still listed stay (a gone one stays gone), a new
 * pid is pinned to the process that has it now (gone if there is none).
 * @procfs: "/proc" (pidfds are opened only there) or a fake tree.
 * Return: 0 or -ENOMEM (@p unchanged).
 */
int pidpins_sync(struct pid_pins *p, const char *procfs, const pid_t *pids,
		 size_t n);

/**
 * pidpins_check() - is each pin's process still there? A pin whose process
 * exited, turned zombie or whose pid now belongs to another process is
 * marked gone and reported once to @on_gone with a reason ("" for a plain
 * exit, else e.g. "pid 4242 is now 'intruder', started later").
 * Return: the number of pins newly gone.
 */
size_t pidpins_check(struct pid_pins *p, const char *procfs,
		     void (*on_gone)(void *arg, const struct pid_pin *pin,
				     const char *why),
		     void *arg);

/** pidpins_release() - close the pidfds and free @p (then empty). */
void pidpins_release(struct pid_pins *p);

#endif
