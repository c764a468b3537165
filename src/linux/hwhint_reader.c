// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hwhint reader threads: drain the perf rings of their CPUs, decode, keep
 * the samples of target processes and queue them for the loop. Each reader
 * owns its queue (it is the only producer), its counters and its seen-page
 * table; it shares only the target snapshot (under tg_mu, copied when
 * tg_gen moves) and the rings (the loop never touches a ring after open).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <syslog.h>
#include <unistd.h>

#include "linux/hwhint_int.h"

/* mem_lvl bits (shift 5) and mem_lvl_num values (shift 33) of union
 * perf_mem_data_src, include/uapi/linux/perf_event.h */
#define DS_LVL(ds) (((ds) >> 5) & 0x3fff)
#define DS_LVLNUM(ds) (((ds) >> 33) & 0xf)
#define LVL_RAM_ANY (PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)

int hwhint_data_src_class(uint64_t ds)
{
	uint64_t num = DS_LVLNUM(ds);

	if (num == PERF_MEM_LVLNUM_CXL || num == PERF_MEM_LVLNUM_PMEM)
		return 2;
	if (num == PERF_MEM_LVLNUM_RAM)
		return 1;
	/* before LVLNUM (and on PMUs that only fill the legacy field) */
	if ((num == 0 || num == PERF_MEM_LVLNUM_NA) && (DS_LVL(ds) & LVL_RAM_ANY) &&
	    (DS_LVL(ds) & PERF_MEM_LVL_HIT))
		return 1;
	return 0;
}

static void refresh_targets(struct hw_reader *r)
{
	struct hwhint *h = r->h;
	uint64_t gen = __atomic_load_n(&h->tg_gen, __ATOMIC_ACQUIRE);

	if (gen == r->tg_gen)
		return;
	pthread_mutex_lock(&h->tg_mu);
	if (h->nr_tg > r->cap_tg) {
		pid_t *n = realloc(r->tg, h->nr_tg * sizeof(*n));

		if (!n) {	/* keep the old snapshot; try again next round */
			pthread_mutex_unlock(&h->tg_mu);
			return;
		}
		r->tg = n;
		r->cap_tg = h->nr_tg;
	}
	if (h->nr_tg)
		memcpy(r->tg, h->tg, h->nr_tg * sizeof(*r->tg));
	r->nr_tg = h->nr_tg;
	r->tg_gen = gen;
	pthread_mutex_unlock(&h->tg_mu);
}

static bool is_target(const struct hw_reader *r, pid_t pid)
{
	size_t lo = 0, hi = r->nr_tg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->tg[mid] == pid)
			return true;
		if (r->tg[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Return: 1 if queued. */
static int handle_sample(struct hw_reader *r, const struct perf_rec_sample *s)
{
	const struct hwhint *h = r->h;
	struct hwhint_counters *c = &r->local;
	struct pl_sample ps;
	int cls = hwhint_data_src_class(s->data_src);

	c->hwhint_total_events++;
	if (cls == 1)
		c->hwhint_dram_accesses++;
	else if (cls == 2)
		c->hwhint_extmem_accesses++;
	/* the IBS profiler's rule: valid linear and physical addresses; a
	 * kernel address (top bit set on x86-64 and arm64) is no page of a
	 * process */
	if (!s->addr || !s->phys_addr || (s->addr >> 63)) {
		c->hwhint_noaddr_events++;
		return 0;
	}
	if (!is_target(r, (pid_t)s->pid)) {
		c->hwhint_untargeted_events++;
		return 0;
	}
	c->hwhint_useful_events++;
	ps.pid = (pid_t)s->pid;
	ps.vaddr = s->addr;
	ps.page_nid = h->pm.nr_runs ? physmap_nid(&h->pm, s->phys_addr) : -ENOENT;
	ps.nid = s->cpu < h->nr_cpu_node ? h->cpu_node[s->cpu] : PGHOT_NID_UNKNOWN;
	ps.time_ms = s->time / 1000000;	/* CLOCK_MONOTONIC ns (use_clockid) */
	if (ps.page_nid < 0) {
		c->hwhint_nonode_events++;
		ps.page_nid = PGHOT_NID_UNKNOWN;
	} else if (!h->have_tiers) {
		/* no tiers known: the pipeline decides */
	} else if (h->lower[ps.page_nid]) {
		c->hwhint_lower_events++;
		if (hwp_seen_add(r->seen, s->phys_addr >> 12, (uint32_t)(ps.time_ms / 1000)))
			c->hwhint_new_lower_pages++;
	} else {
		c->hwhint_toptier_events++;
		if (h->cfg.lower_only)
			return 0;
	}
	if (sampleq_push(&r->q, &ps))
		return 1;
	c->hwhint_dropped_events++;
	return 0;
}

size_t hw_drain_ring(struct hw_reader *r, struct hw_ring *ring)
{
	const struct perf_event_header *hdr;
	struct perf_rec rec;
	size_t len, queued = 0;

	perf_ring_begin(&ring->ring);
	while ((hdr = perf_ring_next(&ring->ring, &len))) {
		int err = perf_rec_decode(hdr, len, &r->h->fmt, &rec);

		perf_rec_count(&r->rc, &rec, err);
		if (!err && rec.kind == PERF_REC_SAMPLE)
			queued += (size_t)handle_sample(r, &rec.sample);
	}
	perf_ring_end(&ring->ring);
	return queued;
}

void hw_reader_publish(struct hw_reader *r)
{
	struct hwhint_counters *c = &r->local;
	const uint64_t *src;
	uint64_t *dst;

	c->hwhint_throttle_records = r->rc.throttle;
	c->hwhint_unthrottle_records = r->rc.unthrottle;
	c->hwhint_lost_records = r->rc.lost_records;
	c->hwhint_lost_events = r->rc.lost;
	c->hwhint_lost_samples_records = r->rc.lost_samples_records;
	c->hwhint_lost_samples = r->rc.lost_samples;
	c->hwhint_other_records = r->rc.other;
	c->hwhint_unknown_records = r->rc.unknown;
	c->hwhint_malformed_records = r->rc.malformed;
	c->hwhint_ring_corrupt = 0;
	c->hwhint_ring_wrapped = 0;
	for (size_t i = r->first_ring; i < r->h->nr_rings; i += r->ring_step) {
		c->hwhint_ring_corrupt += perf_ring_stats(&r->h->rings[i].ring)->corrupt;
		c->hwhint_ring_wrapped += perf_ring_stats(&r->h->rings[i].ring)->wrapped;
	}
	src = (const uint64_t *)c;
	dst = (uint64_t *)&r->pub;
	for (size_t i = 0; i < HW_NR_COUNTERS; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
}

static void *reader_main(void *arg)
{
	struct hw_reader *r = arg;
	struct hwhint *h = r->h;
	struct epoll_event evs[16];
	const uint64_t one = 1;

	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
		size_t queued = 0;

		/* a ring past its watermark, the stop eventfd, or wakeup_ms */
		epoll_wait(r->epfd, evs, 16, (int)h->cfg.wakeup_ms);
		refresh_targets(r);
		for (size_t i = r->first_ring; i < h->nr_rings; i += r->ring_step)
			queued += hw_drain_ring(r, &h->rings[i]);
		hw_reader_publish(r);
		/* an eventfd write fails only when its counter is full, and then
		 * the loop is awake anyway */
		if (queued && write(h->notify_fd, &one, sizeof(one)) < 0)
			continue;
	}
	return NULL;
}

static int reader_init(struct hwhint *h, struct hw_reader *r, size_t idx)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	r->h = h;
	r->first_ring = idx;
	r->ring_step = h->nr_readers;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0)
		return -errno;
	r->seen = malloc(sizeof(*r->seen));
	if (!r->seen)
		return -ENOMEM;
	/* a lower-tier page seen in the last 8 s is not new */
	hwp_seen_init(r->seen, 8);
	if ((err = sampleq_init(&r->q, h->cfg.queue_len)))
		return err;
	ev.data.u64 = UINT64_MAX;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, h->stop_fd, &ev))
		return -errno;
	for (size_t i = idx; i < h->nr_rings; i += r->ring_step) {
		ev.data.u64 = i;
		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, h->rings[i].owner_fd, &ev))
			return -errno;
	}
	return 0;
}

int hw_readers_start(struct hwhint *h, char *errbuf, size_t errlen)
{
	size_t n = h->cfg.readers;
	int err;

	if (n > h->nr_rings)
		n = h->nr_rings;
	if (!n)
		n = 1;
	h->readers = calloc(n, sizeof(*h->readers));
	if (!h->readers)
		return -ENOMEM;
	h->nr_readers = n;
	for (size_t i = 0; i < n; i++)
		h->readers[i].epfd = -1;
	for (size_t i = 0; i < n; i++) {
		struct hw_reader *r = &h->readers[i];

		if ((err = reader_init(h, r, i))) {
			snprintf(errbuf, errlen, "hwhint reader %zu: %s", i, strerror(-err));
			return err;
		}
		if ((err = -pthread_create(&r->th, NULL, reader_main, r))) {
			snprintf(errbuf, errlen, "cannot start a reader thread: %s",
				 strerror(-err));
			return err;
		}
		r->started = true;
	}
	return 0;
}

void hw_readers_stop(struct hwhint *h)
{
	const uint64_t one = 1;

	__atomic_store_n(&h->stop, true, __ATOMIC_RELEASE);
	if (h->stop_fd >= 0 && write(h->stop_fd, &one, sizeof(one)) < 0)
		hw_log(h, LOG_WARNING, "hwhint: cannot wake the readers: %s", strerror(errno));
	for (size_t i = 0; i < h->nr_readers; i++) {
		struct hw_reader *r = &h->readers[i];

		if (r->started)
			pthread_join(r->th, NULL);
		if (r->epfd >= 0)
			close(r->epfd);
		sampleq_free(&r->q);
		free(r->seen);
		free(r->tg);
	}
	free(h->readers);
	h->readers = NULL;
	h->nr_readers = 0;
}
