// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hwhint benchmark: the reader path of the hwhint source on synthetic perf
 * rings (no PMU needed). Prints one "name: value" line per figure; nothing
 * is hard-coded, every figure is measured on this run.
 *
 *   hwhint_decode_samples_per_s  records decoded and recorded (target
 *       filter, node from PHYS_ADDR, seen-page table, queued) per second of
 *       one thread's CPU time, from a 1 MiB ring of hardware samples
 *       (IBS/PEBS layout). Goal >= 5 million.
 *   hwhint_drop_fraction_1M  share of samples lost (ring full, as the
 *       kernel would drop them, or queue full) with a producer thread
 *       writing 1 million samples per second for 10 s into a ring of the
 *       default size (ring_pages), a reader thread woken at a quarter of the
 *       ring (the default watermark) or every 50 ms, and the consumer
 *       taking batches whenever the reader signals (as pghotd's loop does).
 *       Goal 0.
 *
 * Environment: BENCH_HWHINT_SECS (default 10) shortens the drop run;
 * BENCH_HWHINT_RING_PAGES (default: the ring_pages default) tries another
 * ring size.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "linux/hwhint_int.h"
#include "../tests/unit/hw_fake.h"
#include "../tests/unit/rec_build.h"


static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sample i: a page of a 64 GiB-wide set, half of them on the lower node. */
static const struct perf_event_header *sample(struct rec_build *b, uint64_t i)
{
	uint64_t page = (i * 0x9e3779b97f4a7c15ULL) >> 44;	/* 2^20 pages */
	uint64_t phys = (page & 1 ? 4ULL << 30 : 0) + (page % (1 << 19)) * 4096;

	rb_hw_sample(b, 0x401000, HW_FAKE_PID, HW_FAKE_PID, i * 1000, 0x7f0000000000ULL + page * 4096,
		     (uint32_t)(i & 3), 0x1e05080021, phys + 64, 40);
	return &b->h;
}

static struct synth {
	struct perf_event_mmap_page meta;
	uint8_t *data;
	struct hw_ring ring;
} ring;

static void ring_new(uint64_t bytes)
{
	memset(&ring.meta, 0, sizeof(ring.meta));
	ring.data = calloc(1, bytes);
	if (!ring.data || perf_ring_attach(&ring.ring.ring, &ring.meta, ring.data, bytes)) {
		fprintf(stderr, "bench_hwhint: out of memory\n");
		exit(1);
	}
}

static void ring_free(void)
{
	perf_ring_unmap(&ring.ring.ring);
	free(ring.data);
}

static void bench_decode(void)
{
	struct pl_sample out[512];
	struct rec_build b;
	struct hwhint h;
	struct hw_reader r;
	double cpu = 0;
	uint64_t recs = 0, i = 0, queued = 0;

	hw_fake_init(&h, &r, 1 << 16, false);	/* every sample queued: worst case */
	ring_new(1 << 20);
	while (cpu < 1.0) {
		double t0;

		while (!perf_ring_write(&ring.ring.ring, sample(&b, i)))
			i++;
		t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		queued += hw_drain_ring(&r, &ring.ring);
		cpu += clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
		recs = i;
		while (sampleq_pop(&r.q, out, 512))
			;
	}
	if (queued != recs || r.local.hwhint_dropped_events) {
		fprintf(stderr, "bench_hwhint: %llu of %llu samples queued\n",
			(unsigned long long)queued, (unsigned long long)recs);
		exit(1);
	}
	printf("hwhint_decode_samples_per_s: %.0f\n", (double)recs / cpu);
	printf("hwhint_decode_ns_per_sample: %.1f\n", cpu * 1e9 / (double)recs);
	ring_free();
	hw_fake_free(&r);
}

/* ---- producer at 1M/s ---------------------------------------------------- */

static struct {
	uint64_t rate, secs, produced, ring_full;
	int wake_fd;		/* the "kernel" wakes the reader at the watermark */
	int notify_fd;		/* the reader wakes the consumer */
	bool done, reader_done;
	struct hw_reader r;
} run;

static void *producer(void *arg)
{
	const uint64_t burst = run.rate / 1000;	/* one burst per ms */
	uint64_t watermark = ring.ring.ring.size / 4, one = 1;
	struct rec_build b;
	struct timespec due;

	clock_gettime(CLOCK_MONOTONIC, &due);
	for (uint64_t ms = 0; ms < run.secs * 1000; ms++) {
		due.tv_nsec += 1000000;
		if (due.tv_nsec >= 1000000000) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000;
		}

		for (uint64_t k = 0; k < burst; k++) {
			if (perf_ring_write(&ring.ring.ring, sample(&b, run.produced)))
				run.ring_full++;	/* the kernel: PERF_RECORD_LOST */
			run.produced++;
		}
		if (ring.meta.data_head - __atomic_load_n(&ring.meta.data_tail, __ATOMIC_ACQUIRE) >=
		    watermark && write(run.wake_fd, &one, 8) < 0)
			break;
		/* absolute deadlines: a late wake-up is made up by the next
		 * bursts, so the rate holds on average */
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
	}
	__atomic_store_n(&run.done, true, __ATOMIC_RELEASE);
	return arg;
}

static void *reader(void *arg)
{
	struct pollfd p = { .fd = run.wake_fd, .events = POLLIN };
	uint64_t v, one = 1;

	for (;;) {
		bool last = __atomic_load_n(&run.done, __ATOMIC_ACQUIRE);

		poll(&p, 1, 50);	/* wakeup_ms */
		if (read(run.wake_fd, &v, 8) < 0 && errno != EAGAIN)
			break;
		if (hw_drain_ring(&run.r, &ring.ring) && write(run.notify_fd, &one, 8) < 0)
			break;
		if (last)
			break;
	}
	__atomic_store_n(&run.reader_done, true, __ATOMIC_RELEASE);
	return arg;
}

static void bench_drop(void)
{
	struct pollfd p;
	struct pl_sample out[512];
	pthread_t tp, tr;
	struct hwhint h;
	const char *env;
	uint64_t consumed = 0, v;

	run.rate = 1000000;
	hw_fake_init(&h, &run.r, 65536, false);	/* the default queue_len */
	env = getenv("BENCH_HWHINT_RING_PAGES");
	if (env && atoi(env) > 0)
		h.cfg.ring_pages = (uint64_t)atoi(env);
	ring_new(h.cfg.ring_pages * 4096);
	printf("hwhint_drop_ring_pages: %llu\n", (unsigned long long)h.cfg.ring_pages);
	env = getenv("BENCH_HWHINT_SECS");
	run.secs = env && atoi(env) > 0 ? (uint64_t)atoi(env) : 10;
	run.wake_fd = eventfd(0, EFD_NONBLOCK);
	run.notify_fd = eventfd(0, EFD_NONBLOCK);
	if (run.wake_fd < 0 || run.notify_fd < 0 ||
	    pthread_create(&tp, NULL, producer, NULL) ||
	    pthread_create(&tr, NULL, reader, NULL)) {
		fprintf(stderr, "bench_hwhint: cannot start threads\n");
		exit(1);
	}
	p.fd = run.notify_fd;
	p.events = POLLIN;
	for (;;) {
		size_t n;
		bool fin = __atomic_load_n(&run.reader_done, __ATOMIC_ACQUIRE);

		poll(&p, 1, 100);
		if (read(run.notify_fd, &v, 8) < 0 && errno != EAGAIN)
			break;
		while ((n = sampleq_pop(&run.r.q, out, 512)))
			consumed += n;
		if (fin)
			break;
	}
	pthread_join(tp, NULL);
	pthread_join(tr, NULL);
	printf("hwhint_drop_fraction_1M: %.6f\n",
	       (double)(run.ring_full + run.r.local.hwhint_dropped_events) / (double)run.produced);
	printf("hwhint_drop_samples_produced: %llu\n", (unsigned long long)run.produced);
	printf("hwhint_drop_ring_full: %llu\n", (unsigned long long)run.ring_full);
	printf("hwhint_drop_queue_full: %llu\n",
	       (unsigned long long)run.r.local.hwhint_dropped_events);
	printf("hwhint_drop_consumed: %llu\n", (unsigned long long)consumed);
	ring_free();
	hw_fake_free(&run.r);
}

int main(void)
{
	double load[1] = { 0 };
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &load[0]) != 1)
			load[0] = -1;
		fclose(f);
	}
	printf("loadavg_1min: %.2f\n", load[0]);
	bench_decode();
	bench_drop();
	return 0;
}
