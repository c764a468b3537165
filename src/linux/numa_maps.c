// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc/PID/numa_maps, read in chunks; see numa_maps.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "linux/fsroot.h"
#include "linux/numa_maps.h"

#define NUMA_MAPS_READ_CHUNK 65536

static int one(void *arg, const char *line, size_t len)
{
	struct numa_maps_scan *s = arg;
	struct proc_numa_map m;

	if (!len)
		return 0;
	if (proc_parse_numa_map(line, len, &m)) {
		s->bad++;
		return 0;
	}
	return s->fn(s->arg, &m);
}

int numa_maps_scan_open(struct numa_maps_scan *s, const char *procfs,
			pid_t pid, numa_map_fn fn, void *arg)
{
	char path[4096];

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->fn = fn;
	s->arg = arg;
	lines_init(&s->lines);
	if (fsr_path(path, sizeof(path), procfs, "%d/numa_maps", (int)pid))
		return -ENAMETOOLONG;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	return s->fd < 0 ? -errno : 0;
}

int numa_maps_scan_step(struct numa_maps_scan *s, size_t budget)
{
	char buf[NUMA_MAPS_READ_CHUNK];
	size_t done = 0;
	int err;

	if (s->fd < 0)
		return -EBADF;
	do {
		ssize_t n = read(s->fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == ESRCH ? -ENOENT : -errno;
		if (!n)
			return lines_end(&s->lines, one, s) ?: 1;
		s->bytes += (uint64_t)n;
		done += (size_t)n;
		err = lines_feed(&s->lines, buf, (size_t)n, one, s);
		if (err)
			return err;
	} while (done < budget);
	return 0;
}

void numa_maps_scan_release(struct numa_maps_scan *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	lines_init(&s->lines);
}

int proc_read_numa_maps(const char *procfs, pid_t pid, numa_map_fn fn,
			void *arg, size_t *ret_bad)
{
	struct numa_maps_scan s;
	int err = numa_maps_scan_open(&s, procfs, pid, fn, arg);

	while (!err)
		err = numa_maps_scan_step(&s, SIZE_MAX);
	numa_maps_scan_release(&s);
	if (ret_bad)
		*ret_bad = s.bad;
	return err == 1 ? 0 : err;
}
