// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The soak test's target (tests/soak/soak.sh): a process named "soakchurn"
 * whose mappings, threads and hot set keep changing, and which reports its
 * own hot pages to pghotd's feed socket.
 *
 *   churn FEED_SOCKET SECONDS SEED
 *
 * Every turn (about 20 ms): a mapping may go and another come (64 KiB to
 * 4 MiB; a third asked for THPs with madvise(MADV_HUGEPAGE), a sixth bound
 * with mbind(MPOL_INTERLEAVE) to node 0, which pghotd must leave where it
 * is); the hot set moves to other pages; up to 4 threads come and go,
 * writing the hot pages (page faults for the hwhint source); 64 samples
 * "pid vaddr" go to the feed. Now and then a child (also "soakchurn")
 * maps, touches and reports its own pages for up to 1.5 s and exits in the
 * middle of it. Writes nothing but its own memory and the feed socket.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <numaif.h>

#define MAX_MAPS 48
#define MAX_THREADS 4
#define HOT 64
#define PAGE 4096UL

struct map {
	char *p;
	size_t len;
};

static struct map maps[MAX_MAPS];
static size_t nmaps;
static pthread_rwlock_t maps_lock = PTHREAD_RWLOCK_INITIALIZER;
static const char *feed_path;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The feed socket, connected again after pghotd closed it (-1: not now). */
static int feed_fd(int fd)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if (fd >= 0)
		return fd;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", feed_path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* One line per address; the socket is dropped on an error. */
static int report(int fd, const uint64_t *addrs, size_t n)
{
	char buf[HOT * 40];
	size_t len = 0;

	fd = feed_fd(fd);
	if (fd < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%d %#llx\n",
					(int)getpid(), (unsigned long long)addrs[i]);
	if (write(fd, buf, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

static void map_one(uint64_t *s)
{
	size_t len = (16 + rnd(s) % 1009) * PAGE;
	unsigned long node0 = 1;
	char *p;

	if (nmaps == MAX_MAPS)
		return;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	if (rnd(s) % 3 == 0)
		madvise(p, len, MADV_HUGEPAGE);
	if (rnd(s) % 6 == 0)
		mbind(p, len, MPOL_INTERLEAVE, &node0, 2, 0);
	for (size_t off = 0; off < len; off += PAGE * (1 + rnd(s) % 4))
		p[off] = 1;
	maps[nmaps++] = (struct map){ p, len };
}

static void unmap_one(uint64_t *s)
{
	size_t i;

	if (!nmaps)
		return;
	i = rnd(s) % nmaps;
	munmap(maps[i].p, maps[i].len);
	maps[i] = maps[--nmaps];
}

/* @n hot pages of the current mappings (caller holds the lock). */
static size_t pick_hot(uint64_t *s, uint64_t *ret, size_t n)
{
	size_t k = 0;

	for (; nmaps && k < n; k++) {
		const struct map *m = &maps[rnd(s) % nmaps];

		ret[k] = (uintptr_t)m->p + (rnd(s) % (m->len / PAGE)) * PAGE;
	}
	return k;
}

struct worker {
	pthread_t t;
	bool running, done;
	double until;
	uint64_t seed;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t hot[HOT];

	while (now_s() < w->until) {
		size_t n;

		pthread_rwlock_rdlock(&maps_lock);
		n = pick_hot(&w->seed, hot, HOT);
		for (size_t i = 0; i < n; i++)
			((volatile char *)(uintptr_t)hot[i])[0]++;
		pthread_rwlock_unlock(&maps_lock);
		usleep(2000);
	}
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Threads that are done are joined; new ones come up to MAX_THREADS. */
static void threads_turn(struct worker *w, uint64_t *s, double end)
{
	for (int i = 0; i < MAX_THREADS; i++) {
		if (w[i].running && __atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE)) {
			pthread_join(w[i].t, NULL);
			w[i].running = false;
		}
		if (!w[i].running && rnd(s) % 8 == 0) {
			w[i] = (struct worker){
				.running = true, .seed = rnd(s) | 1,
				.until = now_s() + 0.2 + (double)(rnd(s) % 1800) / 1000,
			};
			if (w[i].until > end)
				w[i].until = end;
			if (pthread_create(&w[i].t, NULL, work, &w[i]))
				w[i].running = false;
		}
	}
}

/* A child that reports its own pages and exits in the middle of it. */
static void child(uint64_t seed)
{
	double until = now_s() + (double)(seed % 1500) / 1000;
	size_t len = 256 * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t hot[HOT];
	int fd = -1;

	if (p == MAP_FAILED)
		_exit(1);
	memset(p, 1, len);
	while (now_s() < until) {
		for (size_t i = 0; i < HOT; i++)
			hot[i] = (uintptr_t)p + (rnd(&seed) % 256) * PAGE;
		fd = report(fd, hot, HOT);
		usleep(5000);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS] = { 0 };
	uint64_t s, hot[HOT];
	double end;
	int fd = -1;

	if (argc != 4) {
		fprintf(stderr, "usage: churn FEED_SOCKET SECONDS SEED\n");
		return 2;
	}
	feed_path = argv[1];
	end = now_s() + atof(argv[2]);
	s = strtoull(argv[3], NULL, 0) | 1;
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "soakchurn");
	while (now_s() < end) {
		size_t n;

		pthread_rwlock_wrlock(&maps_lock);
		if (nmaps < 8 || rnd(&s) % 4 == 0)
			map_one(&s);
		if (nmaps > 8 && rnd(&s) % 4 == 0)
			unmap_one(&s);
		n = pick_hot(&s, hot, HOT);
		for (size_t i = 0; i < n; i++)
			((volatile char *)(uintptr_t)hot[i])[0]++;
		pthread_rwlock_unlock(&maps_lock);
		fd = report(fd, hot, n);
		threads_turn(w, &s, end);
		if (rnd(&s) % 50 == 0) {
			uint64_t cs = rnd(&s) | 1;
			pid_t c = fork();

			if (!c)
				child(cs);
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		usleep(20000);
	}
	for (int i = 0; i < MAX_THREADS; i++)
		if (w[i].running)
			pthread_join(w[i].t, NULL);
	while (wait(NULL) > 0)
		;
	return 0;
}
