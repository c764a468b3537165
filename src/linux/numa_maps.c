// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc/PID/numa_maps, read in chunks; see numa_maps.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "linux/fsroot.h"
#include "linux/lines.h"
#include "linux/numa_maps.h"

struct reader {
	numa_map_fn fn;
	void *arg;
	size_t bad;
};

static int one(void *arg, const char *line, size_t len)
{
	struct reader *r = arg;
	struct proc_numa_map m;

	if (!len)
		return 0;
	if (proc_parse_numa_map(line, len, &m)) {
		r->bad++;
		return 0;
	}
	return r->fn(r->arg, &m);
}

int proc_read_numa_maps(const char *procfs, pid_t pid, numa_map_fn fn,
			void *arg, size_t *ret_bad)
{
	struct reader r = { .fn = fn, .arg = arg };
	struct lines l;
	char path[4096], buf[65536];
	int fd, err = 0;

	if (fsr_path(path, sizeof(path), procfs, "%d/numa_maps", (int)pid))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	lines_init(&l);
	while (!err) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno == ESRCH ? -ENOENT : -errno;
		else if (!n)
			break;
		else
			err = lines_feed(&l, buf, (size_t)n, one, &r);
	}
	if (!err)
		err = lines_end(&l, one, &r);
	close(fd);
	if (ret_bad)
		*ret_bad = r.bad;
	return err;
}
