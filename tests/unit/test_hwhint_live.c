// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The whole perf path on the real kernel, with the software page-fault
 * event standing in for a sampling PMU (none is reachable on these
 * machines): copy-on-write faults of a child writing its parent's pages
 * carry ADDR and the old page's PHYS_ADDR. Covers per-target and per-CPU
 * opening, mmap rings, wrap-around, lost records under a flood, the page's
 * node from PHYS_ADDR checked against /proc/PID/pagemap and move_pages(),
 * the reader/queue path of the hwhint source with its counters, queue
 * drops, and the adaptive period (PERF_EVENT_IOC_PERIOD).
 *
 * Needs root (system-wide events, PHYS_ADDR, PFNs in pagemap); skipped with
 * a message when not root or when perf_event_open() is refused. Runs on
 * this machine in `make check` and inside the test-bed guest
 * (tests/vm/hwhint.sh), where node 1 is a CPU-less lower tier and the
 * buffer is bound to it. No sysctl is written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "linux/hwhint.h"
#include "linux/perf_ring.h"
#include "linux/physmap.h"

#define PAGE 4096ul
#define MASK (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
	      PERF_SAMPLE_CPU | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR)

/* The pages children write: mapped and touched by the parent before
 * fork(), so each child write is a COW fault on a present page. */
static uint8_t *buf;
static size_t buf_pages;
static int lower_nid = -1;	/* the node the buffer is bound to, if lower */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The guest's node 1 (CPU-less, lower tier) if there is one. */
static int find_lower_node(void)
{
	char p[128], cpus[64] = "";
	FILE *f;

	snprintf(p, sizeof(p), "/sys/devices/system/node/node1/cpulist");
	f = fopen(p, "r");
	if (!f)
		return -1;
	if (!fgets(cpus, sizeof(cpus), f))
		cpus[0] = '\0';
	fclose(f);
	return cpus[0] == '\n' || cpus[0] == '\0' ? 1 : -1;
}

static void map_buffer(size_t pages)
{
	buf_pages = pages;
	buf = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	/* no THP: one fault per 4 KiB page */
	madvise(buf, pages * PAGE, MADV_NOHUGEPAGE);
	lower_nid = find_lower_node();
	if (lower_nid >= 0) {
		unsigned long mask = 1ul << lower_nid;

		assert_int_equal(mbind(buf, pages * PAGE, MPOL_BIND, &mask, 64, 0), 0);
	}
	for (size_t i = 0; i < pages; i++)
		buf[i * PAGE] = 1;
}

static void unmap_buffer(void)
{
	munmap(buf, buf_pages * PAGE);
	buf = NULL;
}

struct child {
	pid_t pid;
	int go;		/* write a byte: write the next @chunk pages */
	int done;	/* the child answers one byte per chunk */
};

/* A child that writes @chunk pages of the buffer each time it is told to,
 * answering after each chunk, until all pages are written. */
static struct child spawn(size_t chunk)
{
	int a[2], b[2];
	struct child c;

	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	c.pid = fork();
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		char x = 0;

		close(a[1]);
		close(b[0]);
		for (size_t i = 0; i < buf_pages; i += chunk) {
			if (read(a[0], &x, 1) != 1)
				_exit(1);
			for (size_t j = i; j < i + chunk && j < buf_pages; j++)
				buf[j * PAGE] = 2;	/* COW fault */
			if (write(b[1], &x, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	c.go = a[1];
	c.done = b[0];
	return c;
}

static void step(struct child *c)
{
	char x = 0;

	assert_int_equal(write(c->go, &x, 1), 1);
	assert_int_equal(read(c->done, &x, 1), 1);
}

static void reap(struct child *c)
{
	int st;

	close(c->go);
	close(c->done);
	assert_int_equal(waitpid(c->pid, &st, 0), c->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int open_faults(pid_t pid, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = MASK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Skip unless root and the kernel lets us sample page faults. */
static void need_perf(void)
{
	int fd;

	if (geteuid() != 0) {
		fprintf(stderr, "skip: needs root (PHYS_ADDR, system-wide events, pagemap PFNs)\n");
		skip();
	}
	fd = open_faults(0, -1);
	if (fd < 0) {
		fprintf(stderr, "skip: perf_event_open(page-faults) refused: %s\n",
			strerror(errno));
		skip();
	}
	close(fd);
}

static uint64_t pfn_of(const void *p)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t e = 0;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &e, 8, (off_t)((uintptr_t)p / PAGE * 8)), 8);
	close(fd);
	assert_true(e >> 63);
	return e & ((1ULL << 55) - 1);
}

static int node_of(void *p)
{
	int status = -1;

	assert_int_equal(move_pages(0, 1, &p, NULL, &status, 0), 0);
	return status;
}

static bool in_buf(uint64_t addr)
{
	return addr >= (uintptr_t)buf && addr < (uintptr_t)buf + buf_pages * PAGE;
}

/* Drain @ring; count samples of @pid in the buffer and check each one's
 * PHYS_ADDR against the parent's PFN and node of that page. */
struct tally {
	size_t samples, in_buf, phys_ok, node_ok;
	struct perf_rec_counts rc;
};

static void drain(struct perf_ring *ring, pid_t pid, const struct physmap *pm,
		  struct tally *t)
{
	struct perf_rec_format f = { .sample_type = MASK };
	const struct perf_event_header *h;
	struct perf_rec r;
	size_t len;

	perf_ring_begin(ring);
	while ((h = perf_ring_next(ring, &len))) {
		int err = perf_rec_decode(h, len, &f, &r);

		assert_int_equal(err, 0);
		perf_rec_count(&t->rc, &r, err);
		if (r.kind != PERF_REC_SAMPLE)
			continue;
		t->samples++;
		if ((pid_t)r.sample.pid != pid || !in_buf(r.sample.addr))
			continue;
		t->in_buf++;
		if (r.sample.phys_addr / PAGE == pfn_of((void *)(uintptr_t)r.sample.addr))
			t->phys_ok++;
		if (physmap_nid(pm, r.sample.phys_addr) ==
		    node_of((void *)(uintptr_t)(r.sample.addr & ~(PAGE - 1))))
			t->node_ok++;
	}
	perf_ring_end(ring);
}

/* One raw page-fault event on a child writing the buffer, with its ring. */
struct raw {
	struct perf_ring ring;
	struct physmap pm;
	struct tally t;
	struct child c;
	int fd;
};

static void raw_start(struct raw *x, size_t pages, size_t chunk,
		      unsigned int ring_pages)
{
	char err[512];

	need_perf();
	memset(x, 0, sizeof(*x));
	assert_int_equal(physmap_load("/sys", &x->pm, err, sizeof(err)), 0);
	map_buffer(pages);
	x->c = spawn(chunk);
	x->fd = open_faults(x->c.pid, -1);
	assert_true(x->fd >= 0);
	assert_int_equal(perf_ring_map(&x->ring, x->fd, ring_pages), 0);
}

static void raw_drain(struct raw *x)
{
	drain(&x->ring, x->c.pid, &x->pm, &x->t);
}

static void raw_end(struct raw *x)
{
	perf_ring_unmap(&x->ring);
	close(x->fd);
	unmap_buffer();
	physmap_release(&x->pm);
}

/* Per target, a ring big enough for everything: every COW fault on the
 * buffer is sampled with the old page's physical address. */
static void test_cow_phys_addr(void **state)
{
	struct raw x;

	raw_start(&x, 400, 400, 64);
	step(&x.c);
	raw_drain(&x);
	reap(&x.c);
	fprintf(stderr, "cow: %zu samples, %zu on the buffer, %zu PFN = pagemap, %zu node = move_pages%s\n",
		x.t.samples, x.t.in_buf, x.t.phys_ok, x.t.node_ok,
		lower_nid >= 0 ? " (buffer on lower-tier node 1)" : "");
	assert_int_equal(x.t.in_buf, 400);
	assert_int_equal(x.t.phys_ok, 400);
	assert_int_equal(x.t.node_ok, 400);
	assert_int_equal(x.t.rc.lost_records, 0);
	raw_end(&x);
}

/* A one-page ring drained between chunks: records cross its end many
 * times and every one comes out whole. */
static void test_wrap_around(void **state)
{
	struct raw x;

	raw_start(&x, 2000, 40, 1);	/* 40 x 56-byte samples: 2240 of 4096 bytes */
	for (size_t i = 0; i < 2000; i += 40) {
		step(&x.c);
		raw_drain(&x);
	}
	reap(&x.c);
	raw_drain(&x);
	fprintf(stderr, "wrap: %zu samples, %llu records wrapped, %llu lost\n", x.t.samples,
		(unsigned long long)perf_ring_stats(&x.ring)->wrapped,
		(unsigned long long)x.t.rc.lost);
	assert_int_equal(x.t.in_buf, 2000);
	assert_int_equal(x.t.phys_ok, 2000);
	assert_true(perf_ring_stats(&x.ring)->wrapped >= 20);
	assert_int_equal(perf_ring_stats(&x.ring)->corrupt, 0);
	assert_int_equal(x.t.rc.lost_records, 0);
	raw_end(&x);
}

/* A flood into a one-page ring nobody reads: the kernel drops samples and
 * says so in PERF_RECORD_LOST, written with the first record that finds
 * room again (so the child faults a few more pages after the drain);
 * samples + lost account for every fault. */
static void test_lost_under_flood(void **state)
{
	struct raw x;

	raw_start(&x, 5000, 4990, 1);
	step(&x.c);			/* 4990 faults into 73 slots */
	raw_drain(&x);
	step(&x.c);			/* 10 more: LOST comes first */
	reap(&x.c);
	raw_drain(&x);
	fprintf(stderr, "flood: %zu samples read, %llu LOST records saying %llu lost\n",
		x.t.samples, (unsigned long long)x.t.rc.lost_records,
		(unsigned long long)x.t.rc.lost);
	assert_true(x.t.rc.lost_records >= 1);
	assert_true(x.t.rc.lost > 0);
	assert_true(x.t.in_buf < 5000);
	assert_true(x.t.samples + x.t.rc.lost >= 5000);
	raw_end(&x);
}

/* ---- the hwhint machinery ------------------------------------------------ */

struct got {
	size_t n, in_buf, node_ok, cpu_node_ok;
	pid_t pid;
	bool other_pid;
};

static int sink(void *arg, const struct pl_sample *s, size_t n)
{
	struct got *g = arg;

	for (size_t i = 0; i < n; i++) {
		g->n++;
		if (s[i].pid != g->pid)
			g->other_pid = true;
		if (!in_buf(s[i].vaddr))
			continue;
		g->in_buf++;
		if (s[i].page_nid == node_of((void *)(uintptr_t)(s[i].vaddr & ~(PAGE - 1))))
			g->node_ok++;
		if (s[i].nid == 0)	/* every CPU is on node 0 here and in the guest */
			g->cpu_node_ok++;
	}
	return 0;
}

static void live_cfg(struct hwhint_cfg *c, bool per_cpu)
{
	hwhint_cfg_default(c);
	snprintf(c->pmu, sizeof(c->pmu), "faults");
	c->per_cpu = per_cpu;
	c->period = c->period_min = 1;
	c->adaptive = false;
	c->lower_only = false;	/* this machine's node 0 is the top tier */
	c->ring_pages = 64;
}

static void settle(struct hwhint *h, struct got *g)
{
	/* readers drain at least every wakeup_ms (50) */
	for (int i = 0; i < 20; i++) {
		usleep(30000);
		hwhint_poll(h, now_ms(), sink, g);
	}
}

static void run_source(bool per_cpu)
{
	struct hwhint_cfg cfg;
	struct hwhint_counters k;
	struct hwhint *h;
	struct got g = { 0 };
	struct child c, other;
	char err[1024];

	need_perf();
	live_cfg(&cfg, per_cpu);
	map_buffer(1000);
	c = spawn(1000);
	other = spawn(1000);	/* not a target: none of its samples may show */
	g.pid = c.pid;
	if (hwhint_open(&cfg, &(struct src_env){ .sysfs_root = "/sys", .procfs_root = "/proc" }, &h, err, sizeof(err)))
		fail_msg("hwhint_open: %s", err);
	assert_int_equal(hwhint_set_targets(h, &c.pid, 1), 0);
	hwhint_counters(h, &k);
	assert_true(k.hwhint_events_open >= k.hwhint_rings);
	step(&c);
	step(&other);
	reap(&c);
	reap(&other);
	settle(h, &g);
	hwhint_counters(h, &k);
	fprintf(stderr,
		"%s: total %llu useful %llu dropped %llu noaddr %llu untargeted %llu lower %llu reported %llu; %zu on the buffer, %zu page node = move_pages, %zu accessing node = CPU's, %llu events on %llu rings\n",
		per_cpu ? "per-cpu" : "per-target",
		(unsigned long long)k.hwhint_total_events, (unsigned long long)k.hwhint_useful_events,
		(unsigned long long)k.hwhint_dropped_events, (unsigned long long)k.hwhint_noaddr_events,
		(unsigned long long)k.hwhint_untargeted_events,
		(unsigned long long)k.hwhint_lower_events, (unsigned long long)k.hwhint_reported,
		g.in_buf, g.node_ok, g.cpu_node_ok, (unsigned long long)k.hwhint_events_open,
		(unsigned long long)k.hwhint_rings);
	assert_false(g.other_pid);
	assert_int_equal(g.in_buf, 1000);
	assert_int_equal(g.node_ok, 1000);
	assert_int_equal(g.cpu_node_ok, g.in_buf);
	assert_int_equal(k.hwhint_reported, g.n);
	assert_int_equal(k.hwhint_useful_events, g.n);
	assert_int_equal(k.hwhint_dropped_events, 0);
	assert_true(k.hwhint_total_events >= k.hwhint_useful_events + k.hwhint_noaddr_events);
	if (per_cpu)	/* the other child's faults were seen and filtered */
		assert_true(k.hwhint_untargeted_events >= 1000);
	else
		assert_int_equal(k.hwhint_untargeted_events, 0);
	if (lower_nid >= 0) {
		assert_true(k.hwhint_lower_events >= 1000);
		assert_true(k.hwhint_new_lower_pages >= 1000);
	}
	/* no target: per target closes its events */
	assert_int_equal(hwhint_set_targets(h, NULL, 0), 0);
	hwhint_counters(h, &k);
	if (!per_cpu)
		assert_int_equal(k.hwhint_events_open, 0);
	hwhint_close(h);
	unmap_buffer();
}

static void test_source_per_cpu(void **state)
{
	run_source(true);
}

static void test_source_per_target(void **state)
{
	run_source(false);
}

/* A queue of 64 samples nobody polls while 3000 faults arrive: the reader
 * drops (never waits) and counts; what was queued plus what was dropped
 * is what was useful. */
static void test_queue_drops(void **state)
{
	struct hwhint_cfg cfg;
	struct hwhint_counters k;
	struct hwhint *h;
	struct got g = { 0 };
	struct child c;
	char err[1024];

	need_perf();
	live_cfg(&cfg, false);
	cfg.queue_len = 64;
	map_buffer(3000);
	c = spawn(3000);
	g.pid = c.pid;
	if (hwhint_open(&cfg, &(struct src_env){ .sysfs_root = "/sys", .procfs_root = "/proc" }, &h, err, sizeof(err)))
		fail_msg("hwhint_open: %s", err);
	assert_int_equal(hwhint_set_targets(h, &c.pid, 1), 0);
	step(&c);
	reap(&c);
	usleep(300000);		/* the reader drains into the full queue */
	settle(h, &g);
	hwhint_counters(h, &k);
	fprintf(stderr, "drops: useful %llu reported %llu dropped %llu\n",
		(unsigned long long)k.hwhint_useful_events,
		(unsigned long long)k.hwhint_reported,
		(unsigned long long)k.hwhint_dropped_events);
	assert_true(k.hwhint_dropped_events > 0);
	assert_int_equal(k.hwhint_reported + k.hwhint_dropped_events, k.hwhint_useful_events);
	assert_true(k.hwhint_useful_events >= 3000);
	hwhint_close(h);
	unmap_buffer();
}

/* The adaptive period on live events: nothing new on a lower tier, so the
 * period doubles every few intervals (PERF_EVENT_IOC_PERIOD accepted). */
static void test_adaptive_period(void **state)
{
	struct hwhint_cfg cfg;
	struct hwhint_counters k;
	struct hwhint *h;
	pid_t self = getpid();
	char err[1024];
	uint64_t t0 = now_ms();

	need_perf();
	live_cfg(&cfg, true);
	cfg.adaptive = true;
	cfg.adapt_ms = 20;
	cfg.period = cfg.period_min = 8;
	cfg.period_max = 64;
	if (hwhint_open(&cfg, &(struct src_env){ .sysfs_root = "/sys", .procfs_root = "/proc" }, &h, err, sizeof(err)))
		fail_msg("hwhint_open: %s", err);
	assert_int_equal(hwhint_set_targets(h, &self, 1), 0);
	while (now_ms() - t0 < 1000) {
		usleep(5000);
		hwhint_poll(h, now_ms(), NULL, NULL);
	}
	hwhint_counters(h, &k);
	assert_int_equal(k.hwhint_period, 64);
	assert_int_equal(k.hwhint_period_changes, 3);	/* 8 -> 16 -> 32 -> 64 */
	hwhint_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cow_phys_addr),
		cmocka_unit_test(test_wrap_around),
		cmocka_unit_test(test_lost_under_flood),
		cmocka_unit_test(test_source_per_cpu),
		cmocka_unit_test(test_source_per_target),
		cmocka_unit_test(test_queue_drops),
		cmocka_unit_test(test_adaptive_period),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
