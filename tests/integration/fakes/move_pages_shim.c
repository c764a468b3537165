// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD for pghotd in integration tests: plays the kernel's answers
 * to move_pages(2) without moving anything.
 *   SHIM_NID=N     queries find every page on node N (default 1) until it
 *                  is moved
 *   SHIM_MOVE=ok   a move puts the page where asked (the default)
 *            eacces | eperm  a move call fails as a whole with that errno
 *                  (a cpuset without the node; no right to the process)
 *            shared a page with an odd page number gets -EACCES (mapped by
 *                  another process too), the others move
 *   SHIM_LOG=FILE  every page of every move call: "move PID ADDR NODE"
 * Build: cc -shared -fPIC -o shim.so move_pages_shim.c
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4096

static struct {
	uint64_t key;
	int nid;
} moved[SLOTS];

static int *slot_of(uint64_t key, int create)
{
	for (unsigned int i = (unsigned int)(key * 0x9e3779b97f4a7c15ULL >> 52), n = 0;
	     n < SLOTS; i = (i + 1) % SLOTS, n++) {
		if (moved[i].key == key)
			return &moved[i].nid;
		if (!moved[i].key) {
			if (!create)
				return NULL;
			moved[i].key = key;
			return &moved[i].nid;
		}
	}
	return NULL;
}

static void log_call(int pid, unsigned long count, void **pages, const int *nodes)
{
	const char *path = getenv("SHIM_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;

	for (unsigned long i = 0; f && i < count; i++)
		fprintf(f, "move %d %p %d\n", pid, pages[i], nodes[i]);
	if (f)
		fclose(f);
}

long move_pages(int pid, unsigned long count, void **pages, const int *nodes,
		int *status, int flags);

long move_pages(int pid, unsigned long count, void **pages, const int *nodes,
		int *status, int flags)
{
	const char *n = getenv("SHIM_NID"), *mode = getenv("SHIM_MOVE");
	int def = n ? atoi(n) : 1;

	(void)flags;
	if (!mode)
		mode = "ok";
	if (nodes)
		log_call(pid, count, pages, nodes);
	if (nodes && (!strcmp(mode, "eacces") || !strcmp(mode, "eperm"))) {
		errno = mode[1] == 'a' ? EACCES : EPERM;
		return -1;
	}
	for (unsigned long i = 0; i < count; i++) {
		uint64_t page = (uint64_t)(uintptr_t)pages[i] >> 12;
		uint64_t key = ((uint64_t)pid << 40 ^ page) + 1;	/* never 0 */
		int *p;

		if (!nodes) {
			p = slot_of(key, 0);
			status[i] = p ? *p : def;
		} else if (!strcmp(mode, "shared") && (page & 1)) {
			status[i] = -EACCES;
		} else if ((p = slot_of(key, 1))) {
			*p = nodes[i];
			status[i] = nodes[i];
		} else {
			status[i] = -ENOMEM;
		}
	}
	return 0;
}
